// The providers' delivery-status callbacks. No HMAC of Sello's: each provider signs its requests with
// a secret shared with the operator, checked here before anything is read — Twilio's
// X-Twilio-Signature (HMAC-SHA1 of the full URL and the sorted POST parameters, with the auth token),
// Meta's X-Hub-Signature-256 (HMAC-SHA256 of the raw body, with the app secret). Anything unsigned or
// badly signed is 403 and changes nothing.
import { timingSafeEqual } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { AppError } from '../../domain/errors.js';
import { recordDeliveryStatus } from '../../domain/messages/record-delivery-status.js';
import { META_WEBHOOK_PATH, TWILIO_STATUS_PATH } from '../../notify/channels.js';
import { checkMetaSignature, readMetaStatuses } from '../../notify/meta-whatsapp.js';
import { checkTwilioSignature, readTwilioStatus } from '../../notify/twilio.js';
import { ErrorResponse } from '../../schemas/common.js';
import {
  CallbackAnswer,
  MetaChallenge,
  MetaVerifyQuery,
  MetaWebhookBody,
  TwilioStatusBody,
  TwilioStatusQuery,
} from '../../schemas/channels.js';
import type { TypedApp } from '../typed-app.js';

const refused = (why: string) => new AppError('CALLBACK_SIGNATURE_INVALID', why);
const tags = ['channels'];

export function channelCallbackRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    keepRawBodies(app);
    twilioStatusRoute(app, deps);
    metaWebhookRoutes(app, deps);
  };
}

/** Both providers' signatures cover the bytes as sent: keep them, parse after the check. */
function keepRawBodies(app: TypedApp) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    req.rawBody = body as Buffer;
    try {
      done(null, JSON.parse((body as Buffer).toString('utf8')));
    } catch {
      done(null, undefined); // refused below, after the signature
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (req, body, done) => {
    req.rawBody = body as Buffer;
    done(null, Object.fromEntries(new URLSearchParams((body as Buffer).toString('utf8'))));
  });
}

function twilioStatusRoute(app: TypedApp, deps: Deps) {
  // Before the schema: a request that is not Twilio's is refused whatever its body.
  const twilioCheck = async (req: FastifyRequest) => {
    const twilio = deps.config.channels.twilio;
    if (!twilio) {
      throw refused('Twilio is not configured on this server');
    }
    // The URL Twilio signed: the one it was given (the public URL) with the path and query as received.
    const url = `${deps.config.publicUrl}${req.url}`;
    // The form as parsed (keepRawBodies), not yet checked: every parameter counts in the signature.
    const params = (req.body ?? {}) as Record<string, string>;
    if (!checkTwilioSignature(twilio.authToken, url, params, req.headers['x-twilio-signature'])) {
      req.log.warn({ path: TWILIO_STATUS_PATH }, 'twilio callback refused: bad signature');
      throw refused('X-Twilio-Signature is missing or does not match');
    }
  };

  app.post(
    TWILIO_STATUS_PATH,
    {
      preValidation: twilioCheck,
      schema: {
        operationId: 'receiveTwilioStatus',
        security: [],
        summary: "Twilio's status callback of an SMS or WhatsApp message (signed with X-Twilio-Signature)",
        description:
          'Set as StatusCallback of every message Sello sends through Twilio. 403 CALLBACK_SIGNATURE_INVALID when the ' +
          'signature is missing or wrong, or Twilio is not configured; nothing changes then.',
        tags,
        consumes: ['application/x-www-form-urlencoded'],
        querystring: TwilioStatusQuery,
        body: TwilioStatusBody,
        response: { 200: CallbackAnswer, '4xx': ErrorResponse },
      },
    },
    async (req) => {
      const status = readTwilioStatus(req.body);
      const applied = status
        ? await recordDeliveryStatus(deps, { provider: 'twilio', messageId: req.query.message_id, ...status })
        : 'ignored';
      return { status: 'ok' as const, applied: applied === 'applied' ? 1 : 0 };
    },
  );
}

function metaWebhookRoutes(app: TypedApp, deps: Deps) {
  app.get(
    META_WEBHOOK_PATH,
    {
      schema: {
        operationId: 'verifyMetaWebhook',
        security: [],
        summary: "Meta's verification of the WhatsApp webhook URL: hub.challenge echoed when hub.verify_token matches",
        description: '403 CALLBACK_SIGNATURE_INVALID when the token does not match SELLO_META_VERIFY_TOKEN or Meta is not configured.',
        tags,
        querystring: MetaVerifyQuery,
        response: { 200: { content: { 'text/plain': { schema: MetaChallenge } } }, '4xx': ErrorResponse },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const meta = deps.config.channels.meta;
      if (!meta || q['hub.mode'] !== 'subscribe' || !sameText(q['hub.verify_token'] ?? '', meta.verifyToken)) {
        throw refused('hub.verify_token does not match');
      }
      return reply.type('text/plain').send(q['hub.challenge'] ?? '');
    },
  );

  app.post(
    META_WEBHOOK_PATH,
    {
      preValidation: async (req) => {
        const meta = deps.config.channels.meta;
        if (!meta) {
          throw refused("Meta's WhatsApp Cloud API is not configured on this server");
        }
        if (!req.rawBody || !checkMetaSignature(meta.appSecret, req.rawBody, req.headers['x-hub-signature-256'])) {
          req.log.warn({ path: META_WEBHOOK_PATH }, 'meta webhook refused: bad signature');
          throw refused('X-Hub-Signature-256 is missing or does not match');
        }
        if (req.body === undefined) {
          throw new AppError('INVALID_JSON', 'the body is not valid JSON');
        }
      },
      schema: {
        operationId: 'receiveMetaWebhook',
        security: [],
        summary: "Meta's WhatsApp webhook: message statuses (signed with X-Hub-Signature-256)",
        description:
          '403 CALLBACK_SIGNATURE_INVALID when the signature is missing or wrong, or Meta is not configured; nothing changes then.',
        tags,
        body: MetaWebhookBody,
        response: { 200: CallbackAnswer, '4xx': ErrorResponse },
      },
    },
    async (req) => {
      let applied = 0;
      for (const s of readMetaStatuses(req.body)) {
        if ((await recordDeliveryStatus(deps, { provider: 'meta', ...s })) === 'applied') {
          applied++;
        }
      }
      return { status: 'ok' as const, applied };
    },
  );
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  // Length first: timingSafeEqual needs equal lengths; the token's length is not the secret.
  return x.length === y.length && timingSafeEqual(x, y);
}
