// Certified email: the `certified_email` part of the create payload and the evidence answer of
// GET /api/certifiedEmail/{ticket}/data (decisions.md "Certified email"; docs/api.md).
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, TicketParam, examples } from './common.js';

export const CERTIFIED_SUBJECT_MAX = 200;
export const CERTIFIED_MESSAGE_MAX = 10_000;

export const CertifiedEmailInput = Type.Object(
  {
    to: Type.String({ description: 'one email address' }),
    subject: Type.String({ maxLength: CERTIFIED_SUBJECT_MAX, description: `1 to ${CERTIFIED_SUBJECT_MAX} characters, one line` }),
    message: Type.String({ maxLength: CERTIFIED_MESSAGE_MAX, description: `the body text, at most ${CERTIFIED_MESSAGE_MAX} characters` }),
  },
  {
    additionalProperties: true,
    description:
      'sends the document to `to` as a certified email: when the document is created, or, when it has signers, ' +
      'with the signed original once every signer signed; not with document_set; unknown keys are listed in warnings',
  },
);
export type CertifiedEmailInput = Static<typeof CertifiedEmailInput>;

export const CertifiedEmailParams = Type.Object({ ticket: TicketParam() });

const Seen = Type.Object({
  ip: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
});

const DeliveryReport = Type.Object({
  received_at: DateTime('when the report was fed to the service'),
  action: Type.String({ description: 'RFC 3464 Action: failed, delayed, delivered, relayed or expanded' }),
  status: Nullable(Type.String({ description: 'RFC 3464 Status, e.g. 5.1.1' })),
  recipient: Nullable(Type.String()),
  diagnostic_code: Nullable(Type.String({ description: "the receiving server's words, e.g. smtp; 550 5.1.1 no such user" })),
  reporting_mta: Nullable(Type.String()),
  remote_mta: Nullable(Type.String()),
  verified: Type.Boolean({
    description:
      'true: it carried the envelope id the service gave the SMTP server, and set delivered_at or bounced_at; false: matched by the Message-ID alone (which the recipient knows), kept and trusted for nothing',
  }),
});

export const CertifiedEmailData = Type.Object({
  recipient: Type.String(),
  subject: Type.String(),
  message: Type.String(),
  status: StringEnum(['waiting', 'queued', 'outbox', 'sent', 'refused', 'failed', 'delivered', 'bounced'], {
    description:
      'waiting: for the last signature; queued: to be handed to the SMTP server; outbox: no SMTP server configured; ' +
      'sent: accepted by the SMTP server; refused: refused by it for good; failed: never handed over (no answer from the server after every attempt, or an unreadable attachment); delivered or bounced: as a delivery-status notification said',
  }),
  content_sha256: Type.Optional(Type.String({ description: 'SHA-256 (hex) of the message exactly as sent: its RFC 5322 bytes' })),
  sent_at: Type.Optional(DateTime('when the SMTP server accepted the message')),
  smtp_reply: Type.Optional(Type.String({ description: "the SMTP server's reply to the message, with its queue id" })),
  delivered_at: Type.Optional(DateTime('first delivery-status notification saying delivered')),
  bounced_at: Type.Optional(DateTime('first delivery-status notification saying failed')),
  opened_at: Type.Optional(DateTime('first load of the tracking image: a probable read, not a proven one')),
  downloaded_at: Type.Optional(DateTime('first download of the document through the link in the email: a proven retrieval')),
  evidence: Type.Object({
    pdf: Type.String({ description: 'URL of the evidence PDF sealed by the service (GET, signed like every API call)' }),
    message_id: Nullable(Type.String({ description: 'the Message-ID header of the email' })),
    document_sha256: Nullable(Type.String({ description: 'SHA-256 of the PDF attached or linked' })),
    delivery: Nullable(StringEnum(['attachment', 'link'], { description: 'how the PDF travels: attached, or only by the link' })),
    content_bytes: Nullable(Type.Integer({ description: 'size of the message as sent' })),
    refused: Nullable(
      Type.Object(
        {
          at: DateTime(),
          reply: Type.String(),
          by_server: Type.Boolean({ description: 'false: the server never answered; the reply is the cause' }),
        },
        { description: 'not delivered for good: refused by the SMTP server, or never handed over' },
      ),
    ),
    open: Nullable(
      Type.Composite([Type.Object({ seen_through: StringEnum(['tracking_image']) }), Seen], {
        description: 'the first open, seen through an image in the email (an image proxy or a scanner may load it too)',
      }),
    ),
    download: Nullable(
      Type.Composite([Type.Object({ seen_through: StringEnum(['download_link']) }), Seen], {
        description: 'the first download of the document through its link',
      }),
    ),
    delivery_reports: Type.Array(DeliveryReport),
  }),
});
export type CertifiedEmailData = Static<typeof CertifiedEmailData>;
examples(CertifiedEmailData, {
  recipient: 'ana@example.com',
  subject: 'Contrato firmado',
  message: 'Ana, te envío el contrato firmado.',
  status: 'delivered',
  content_sha256: '3f1c4b2a9e0d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b',
  sent_at: '2026-03-02T17:04:05.000Z',
  smtp_reply: '250 2.0.0 Ok: queued as 4Zb1xT0Q9Lz1',
  delivered_at: '2026-03-02T17:04:09.000Z',
  opened_at: '2026-03-02T17:20:41.000Z',
  downloaded_at: '2026-03-02T17:21:03.000Z',
  evidence: {
    pdf: 'https://sign.example.com/api/certifiedEmail/80c4eab2-51ac-4aa7-b3be-9a2a58282d14/evidence',
    message_id: '<0b7d9f3e-6d0b-4bbf-9d2c-1f0c5a8e4c11@sign.example.com>',
    document_sha256: '9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b3f1c4b2a9e0d7c6b5a4f3e2d1c0b',
    delivery: 'attachment',
    content_bytes: 48213,
    refused: null,
    open: { seen_through: 'tracking_image', ip: '203.0.113.7', user_agent: 'Mozilla/5.0' },
    download: { seen_through: 'download_link', ip: '203.0.113.7', user_agent: 'Mozilla/5.0' },
    delivery_reports: [
      {
        received_at: '2026-03-02T17:04:09.000Z',
        action: 'delivered',
        status: '2.0.0',
        recipient: 'ana@example.com',
        diagnostic_code: 'smtp; 250 2.0.0 Ok',
        reporting_mta: 'dns; mx.example.com',
        remote_mta: null,
        verified: true,
      },
    ],
  },
});

export const CertifiedLinkParams = Type.Object({ token: Type.String({ description: 'the random token of the link' }) });

/** The open image: a 1×1 transparent GIF. */
export const GifImage = {
  description: 'a 1×1 transparent GIF',
  content: { 'image/gif': { schema: Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary' }) } },
};
