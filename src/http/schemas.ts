// TypeBox schemas of the API's bodies and responses: they feed the OpenAPI document at
// /openapi.json and, where a route does not validate in its use case, the request validation.
import { Type } from '@sinclair/typebox';

export const ErrorResponse = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String({ description: 'UPPER_SNAKE error code, listed in docs/api.md' }),
        message: Type.String({ description: 'what is wrong, naming the field' }),
        details: Type.Optional(Type.Unknown()),
      },
      { additionalProperties: true },
    ),
  },
  { description: 'Every error but 401 (whose body is empty)' },
);

/** The workflow keys of decisions.md; a document's workflow also takes their camelCase spelling. */
export const WorkflowSettingsSchema = Type.Object(
  {
    ordered: Type.Optional(Type.Boolean({ description: 'invite one signer at a time, in sticker order (default false)' })),
    expiration_date: Type.Optional(
      Type.String({ description: 'dd/mm/yyyy (end of that day, account time zone) or ISO 8601; default 30 days after start' }),
    ),
    remind_every: Type.Optional(Type.Integer({ minimum: 0, maximum: 365, description: 'days between reminders; 0 never (default 2)' })),
    language: Type.Optional(Type.String({ enum: ['es', 'en'] })),
    subject: Type.Optional(Type.String({ maxLength: 200 })),
    message: Type.Optional(Type.String({ maxLength: 5000 })),
    attach_files: Type.Optional(Type.Boolean({ description: 'the conclusion email carries the signed PDF (default false)' })),
    conclusion_emails: Type.Optional(Type.Array(Type.String(), { maxItems: 50 })),
    cancel: Type.Optional(Type.Boolean({ description: 'cancel the flow' })),
  },
  { additionalProperties: true, description: 'unknown keys are ignored and listed in ignored_keys' },
);

const Rect = Type.Object(
  { lx: Type.Number(), ly: Type.Number(), tx: Type.Number(), ty: Type.Number() },
  { description: 'PDF points, unrotated user space, origin at the lower-left corner of the CropBox; lx < tx, ly < ty' },
);

const Sticker = Type.Object(
  {
    authority: Type.String({ enum: ['EMAIL_LINK', 'EMAIL', 'SMS', 'WHATSAPP', 'SAT'] }),
    data: Type.String({ description: 'email (EMAIL_LINK, EMAIL), E.164 phone (SMS, WHATSAPP) or RFC (SAT)' }),
    page: Type.Integer({ minimum: 0, description: '0-based' }),
    rect: Rect,
    name: Type.Optional(Type.String()),
    email: Type.Optional(Type.String()),
    stickerType: Type.Optional(Type.Unknown()),
    dataType: Type.Optional(Type.Unknown()),
    imageType: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
);

const QrBox = Type.Object(
  { page: Type.Integer({ minimum: 0, description: '0-based' }), rect: Rect },
  { description: 'the QR code is the largest square centred in rect, at least 48 × 48 points' },
);

export const CreateDocumentBody = Type.Object(
  {
    b64_doc: Type.Optional(Type.String({ description: 'Base64 of the PDF' })),
    url_doc: Type.Optional(Type.Object({ url: Type.String(), name: Type.Optional(Type.String()) })),
    template: Type.Optional(Type.Object({ title: Type.String(), name: Type.Optional(Type.String()) })),
    fields: Type.Optional(
      Type.Array(Type.Object({ id: Type.String(), value: Type.Union([Type.String(), Type.Number(), Type.Boolean()]) }), {
        description: 'values for the template fields; used with template',
      }),
    ),
    tables: Type.Optional(
      Type.Array(
        Type.Object({
          id: Type.String(),
          rows: Type.Array(
            Type.Union([
              Type.Array(Type.Object({ id: Type.String(), value: Type.Union([Type.String(), Type.Number(), Type.Boolean()]) })),
              Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
            ]),
          ),
        }),
        { description: 'rows for the tables of an html template; used with template' },
      ),
    ),
    name: Type.Optional(Type.String({ description: 'file name of the document' })),
    stickers: Type.Optional(Type.Array(Sticker)),
    qr: Type.Optional(
      Type.Array(QrBox, {
        maxItems: 10,
        description: "where to draw a QR code linking to the document's public verification page, /verify/{document_ticket}",
      }),
    ),
    document_set: Type.Optional(Type.String({ description: 'uuid of an OPEN set; not with workflow' })),
    workflow: Type.Optional(WorkflowSettingsSchema),
  },
  { additionalProperties: true, description: 'Exactly one of b64_doc, url_doc, template' },
);

export const CreateDocumentResponse = Type.Object({
  document_ticket: Type.String(),
  document_url: Type.String(),
  document_flow: Type.Boolean(),
  sticker_count: Type.Integer(),
  stickers: Type.Array(
    Type.Object({
      sticker_id: Type.String(),
      signer_id: Type.String(),
      sticker_index: Type.Integer(),
      sticker_authority: Type.String(),
      sticker_data: Type.String(),
      sticker_email: Type.Union([Type.String(), Type.Null()]),
      sticker_page: Type.Integer(),
      sticker_coordinates: Rect,
      signer_url: Type.String(),
    }),
  ),
  warnings: Type.Array(Type.String()),
});

const ListedSigner = Type.Object({
  signer_id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  authority: Type.String(),
  data: Type.String(),
  status: Type.String(),
});

export const DocumentListResponse = Type.Object({
  documents: Type.Array(
    Type.Object({
      document_ticket: Type.String(),
      name: Type.String(),
      status: Type.String(),
      created_at: Type.String({ format: 'date-time' }),
      signers: Type.Array(ListedSigner),
      signed_count: Type.Integer(),
    }),
  ),
  nextToken: Type.Optional(Type.String({ description: 'absent on the last page' })),
});

export const DocumentSetResponse = Type.Object({
  uuid: Type.String(),
  name: Type.String(),
  status: Type.String(),
  metadata: Type.Unknown(),
  created_at: Type.String({ format: 'date-time' }),
  closed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: "the flow's expiration, once closed" }),
  workflow: Type.Unknown({ description: "the set's workflow settings, once closed" }),
  signers: Type.Array(
    Type.Object({
      signer_id: Type.String(),
      authority: Type.String(),
      data: Type.String(),
      name: Type.Union([Type.String(), Type.Null()]),
      email: Type.Union([Type.String(), Type.Null()]),
      status: Type.String(),
      position: Type.Integer(),
    }),
    { description: 'the set signers: preloaded while OPEN; everyone, in flow order, once closed' },
  ),
  documents: Type.Array(
    Type.Object({
      document_ticket: Type.String(),
      name: Type.String(),
      status: Type.String(),
      created_at: Type.String({ format: 'date-time' }),
      signers: Type.Array(Type.Object({}, { additionalProperties: true })),
    }),
  ),
});

const ReportBox = {
  page: Type.Number({ description: '0-based page of the signature field; -1 when it is on no page' }),
  left: Type.Number({ description: 'points from the left edge of the CropBox (unrotated user space)' }),
  top: Type.Number({ description: "points from the top edge of the CropBox down to the box's upper edge" }),
  width: Type.Number(),
  height: Type.Number(),
};

export const SignatureReportResponse = Type.Object(
  {
    InkSignatures: Type.Array(Type.Object({ campoFirma: Type.String(), box: Type.Integer(), ...ReportBox }), {
      description: 'every box where a signer drew a signature by hand (signature type "drawn")',
    }),
    firmas: Type.Array(
      Type.Object({
        ...ReportBox,
        downstream: Type.Boolean({ description: 'a later revision was appended after this signature' }),
        campoFirma: Type.String({ description: 'signature field name (Sello-<signer_id> for signatures made here)' }),
        signatureType: Type.String({ description: 'PAdES-B-T or PAdES-B-B; the /SubFilter for other signature kinds' }),
        validSignature: Type.Boolean({ description: 'the CMS signature verifies over the bytes its /ByteRange covers' }),
        coversDocument: Type.Boolean({ description: 'the /ByteRange covers the whole file except this /Contents' }),
        totalRevisions: Type.Integer(),
        revision: Type.Integer({ description: '1-based revision this signature closes' }),
        signDate: Type.String({ description: "ISO 8601: the time-stamp's genTime, else the claimed /M" }),
        certType: Type.String({ enum: ['service-issued', 'external'] }),
        signCertificateSerial: Type.String({ description: 'lowercase hex' }),
        box: Type.Integer({ description: 'sticker_index of the box holding the signature field; -1 for a signature not made here' }),
        email: Type.String(),
        ipAddress: Type.String({ description: 'empty: not recorded yet' }),
        timestampAuthority: Type.String({ description: "DN of the verified time-stamp's authority; empty without one" }),
        downstreamData: Type.Object({
          authority: Type.String(),
          dataType: Type.String({ description: 'email, phone or rfc' }),
          subject: Type.String(),
        }),
        ocsp: Type.Object({
          signatureValid: Type.Boolean(),
          certStatus: Type.String({ enum: ['good', 'revoked', 'unknown'] }),
          signer: Type.String({ description: 'DN of the OCSP responder; empty when the service is not authoritative' }),
        }),
        certificados: Type.Array(
          Type.Object({
            commonName: Type.String(),
            email: Type.String(),
            serial: Type.String(),
            signatureAlgorithm: Type.String(),
            issuerCommonName: Type.String(),
          }),
        ),
      }),
    ),
  },
  { description: 'Every signature of the current original, checked from the file' },
);

export const DocumentHistoryResponse = Type.Object(
  {
    document_ticket: Type.String(),
    entries: Type.Array(
      Type.Object({
        seq: Type.Integer({ minimum: 1, description: '1, 2, 3… in the order the changes committed' }),
        at: Type.String({ format: 'date-time' }),
        action: Type.String({ description: 'created, invited, reminded, viewed, signed, rejected, completed, deleted, restored, …' }),
        actor: Type.String({ description: "'account' (the API caller), 'signer:<signer_id>' or 'system'" }),
        ip: Type.Union([Type.String(), Type.Null()], { description: 'the address the request came from; null for the system' }),
        details: Type.Object({}, { additionalProperties: true, description: 'what changed; its keys depend on the action' }),
        prev_hash: Type.String({ description: 'hash of the previous entry; 64 zeros for the first' }),
        hash: Type.String({ description: 'SHA-256 hex of the canonical JSON of the entry (docs/api.md)' }),
      }),
    ),
    chain: Type.Object({
      valid: Type.Boolean({ description: 'every hash, link and seq checks, and the last entry is the head the document records' }),
      entries: Type.Integer(),
      first_broken_seq: Type.Union([Type.Integer(), Type.Null()], { description: 'where the chain first breaks; null when valid' }),
    }),
  },
  { description: 'The history of a document, oldest first, with the check of its hash chain' },
);

/** The body of a signature through the signing API (a document link or a set link). */
export const SignBody = Type.Object({
  signature: Type.Union([
    Type.Object({ type: Type.Literal('drawn'), image: Type.String({ description: 'data:image/png;base64,...' }) }),
    Type.Object({ type: Type.Literal('typed'), text: Type.String({ maxLength: 100 }) }),
  ]),
  consent: Type.Literal(true),
});
