// The providers' status callbacks (routes/channel-callbacks.ts): Twilio's status callback form and
// Meta's WhatsApp webhook. Their shapes are the providers'; only what Sello reads is named.
import { Type } from '@sinclair/typebox';
import { examples } from './common.js';

export const TwilioStatusQuery = Type.Object({
  message_id: Type.Optional(Type.String({ description: "Sello's message id, set in the StatusCallback URL when the message was sent" })),
});

export const TwilioStatusBody = Type.Object(
  {
    MessageSid: Type.String({ description: "Twilio's id of the message" }),
    MessageStatus: Type.String({ description: 'queued, sent, delivered, undelivered, failed, read...' }),
    ErrorCode: Type.Optional(Type.String({ description: "Twilio's error code of a failure (e.g. 30003)" })),
    To: Type.Optional(Type.String()),
    From: Type.Optional(Type.String()),
    AccountSid: Type.Optional(Type.String()),
  },
  { description: 'application/x-www-form-urlencoded, as Twilio posts it; every parameter is covered by X-Twilio-Signature' },
);
examples(TwilioStatusBody, {
  MessageSid: 'SM5a0c6f0e2f554f0b8a8e0b8f6c1d2e3f',
  MessageStatus: 'undelivered',
  ErrorCode: '30003',
  To: '+525512345678',
  From: '+15005550006',
  AccountSid: 'AC0123456789abcdef0123456789abcdef',
});

export const CallbackAnswer = Type.Object({
  status: Type.Literal('ok'),
  applied: Type.Integer({ description: 'statuses that changed a message' }),
});
examples(CallbackAnswer, { status: 'ok', applied: 1 });

export const MetaVerifyQuery = Type.Object({
  'hub.mode': Type.Optional(Type.String({ description: 'subscribe' })),
  'hub.verify_token': Type.Optional(Type.String({ description: 'must equal SELLO_META_VERIFY_TOKEN' })),
  'hub.challenge': Type.Optional(Type.String({ description: 'echoed back when the token matches' })),
});

export const MetaChallenge = Type.String({ description: 'hub.challenge, as text/plain' });

export const MetaWebhookBody = Type.Object(
  {
    object: Type.Optional(Type.String({ description: 'whatsapp_business_account' })),
    entry: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  },
  { description: 'the webhook payload as Meta sends it; only entry[].changes[].value.statuses[] is read' },
);
examples(MetaWebhookBody, {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            statuses: [
              {
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3',
                status: 'failed',
                recipient_id: '525512345678',
                biz_opaque_callback_data: '0b8f6c1d-2e3f-4f0b-8a8e-5a0c6f0e2f55',
                errors: [{ code: 131026, title: 'Message undeliverable' }],
              },
            ],
          },
        },
      ],
    },
  ],
});
