// Documents: create, list, download, delete and restore (routes/documents.ts).
import { type Static, Type } from '@sinclair/typebox';
import { AuthorityName, DateTime, Nullable, Rect, StringEnum, checkedByUseCase } from './common.js';
import { examples } from './common.js';
import { DocumentWorkflowSettings } from './workflows.js';
import { CertifiedEmailInput } from './certified-email.js';
import { CreatedSignerField, SignerFieldsInput } from './signer-fields.js';

const FieldValue = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

const Sticker = Type.Object(
  {
    authority: AuthorityName,
    data: Type.String({ description: 'email (EMAIL_LINK, EMAIL, CERT), E.164 phone (SMS, WHATSAPP) or RFC (SAT)' }),
    certificate_match: Type.Optional(
      Type.Unknown({
        description:
          'CERT: {field: "serialNumber" | "uid" | "email", value}: the certificate subject attribute that must equal value, instead of naming data',
      }),
    ),
    page: Type.Integer({ minimum: 0, description: '0-based' }),
    rect: Rect,
    name: Type.Optional(Type.String()),
    email: Type.Optional(Type.String()),
    requireIdentityVerification: Type.Optional(
      Type.Boolean({ description: "this box's signer verifies their identity before signing (docs/api.md, Identity verification)" }),
    ),
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
      Type.Array(Type.Object({ id: Type.String(), value: FieldValue }), {
        description: 'values for the template fields; used with template',
      }),
    ),
    tables: Type.Optional(
      Type.Array(
        Type.Object({
          id: Type.String(),
          rows: Type.Array(
            Type.Union([Type.Array(Type.Object({ id: Type.String(), value: FieldValue })), Type.Record(Type.String(), FieldValue)]),
          ),
        }),
        { description: 'rows for the tables of an html template; used with template' },
      ),
    ),
    name: Type.Optional(Type.String({ maxLength: 200, description: 'file name of the document' })),
    // checkedByUseCase: boxes are measured against the PDF's pages, and every refusal is 400
    // INVALID_STICKER naming the sticker index and the rule (decisions.md), not INVALID_INPUT.
    stickers: Type.Optional(Type.Array(Sticker, { ...checkedByUseCase, description: 'the boxes to sign; rules: decisions.md' })),
    signer_fields: Type.Optional(SignerFieldsInput),
    // checkedByUseCase: measured against the PDF's pages too, with messages naming qr[i] and the rule.
    qr: Type.Optional(
      Type.Array(QrBox, {
        ...checkedByUseCase,
        maxItems: 10,
        description: "where to draw a QR code linking to the document's public verification page, /verify/{document_ticket}",
      }),
    ),
    document_set: Type.Optional(Type.String({ minLength: 1, description: 'uuid of an OPEN set; not with workflow' })),
    workflow: Type.Optional(DocumentWorkflowSettings),
    requireIdentityVerification: Type.Optional(
      Type.Boolean({ description: 'every signer verifies their identity before signing (in a document set too)' }),
    ),
    nom151: Type.Optional(
      Type.Union([Type.Boolean(), Type.Null()], {
        description: "stamp the completed document (NOM-151); absent or null: the account's default",
      }),
    ),
    certified_email: Type.Optional(CertifiedEmailInput),
  },
  { additionalProperties: true, description: 'Exactly one of b64_doc, url_doc, template; unknown keys are listed in warnings' },
);
examples(
  CreateDocumentBody,
  {
    b64_doc: 'JVBERi0xLjcK...',
    name: 'Contract',
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana', page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } },
      { authority: 'SMS', data: '+525512345678', page: 1, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } },
    ],
    qr: [{ page: 0, rect: { lx: 460, ly: 30, tx: 560, ty: 130 } }],
    certified_email: { to: 'legal@example.com', subject: 'Signed contract', message: 'The contract, signed by both parties.' },
  },
  {
    template: { title: 'contrato', name: 'Contrato Ana' },
    fields: [
      { id: 'client', value: 'Ana Pérez' },
      { id: 'date', value: '22/11/2026' },
    ],
    tables: [
      {
        id: 'items',
        rows: [
          { item: 'Widget', qty: '3' },
          [
            { id: 'item', value: 'Gadget' },
            { id: 'qty', value: 7 },
          ],
        ],
      },
    ],
    stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } }],
    workflow: { ordered: true, expiration_date: '31/12/2026', remind_every: 3, language: 'en' },
  },
);
export type CreateDocumentInput = Static<typeof CreateDocumentBody>;

export const CreatedSticker = Type.Object({
  sticker_id: Type.String(),
  signer_id: Type.String({ description: 'the same for every sticker of one signer' }),
  sticker_index: Type.Integer(),
  sticker_authority: Type.String(),
  sticker_data: Type.String(),
  sticker_email: Nullable(Type.String()),
  sticker_page: Type.Integer(),
  sticker_coordinates: Rect,
  signer_url: Type.String({ description: "the personal signing link of this sticker's signer" }),
});
export type CreatedSticker = Static<typeof CreatedSticker>;

export const CreatedDocument = Type.Object({
  document_ticket: Type.String(),
  document_url: Type.String(),
  document_flow: Type.Boolean({ description: 'a workflow (own or set) sends the invitations' }),
  sticker_count: Type.Integer(),
  stickers: Type.Array(CreatedSticker),
  signer_fields: Type.Array(CreatedSignerField, { description: 'the fields signers fill, in the order sent; [] when none' }),
  warnings: Type.Array(Type.String()),
});
export type CreatedDocument = Static<typeof CreatedDocument>;
examples(CreatedDocument, {
  document_ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14',
  document_url: 'https://sign.example.com/document/80c4eab2-51ac-4aa7-b3be-9a2a58282d14',
  document_flow: false,
  sticker_count: 2,
  stickers: [
    {
      sticker_id: 'd36d2a42-799f-4b97-8e6f-767d5f4b4d0a',
      signer_id: '75dd5827-0af9-48ce-bc38-bab518ec8e07',
      sticker_index: 0,
      sticker_authority: 'EMAIL_LINK',
      sticker_data: 'ana@example.com',
      sticker_email: 'ana@example.com',
      sticker_page: 0,
      sticker_coordinates: { lx: 50, ly: 50, tx: 250, ty: 120 },
      signer_url: 'https://sign.example.com/sign/l4mLiqRrZZVFo3eFwK6ltQ8azMrWB7vGTMWScrAuFFo',
    },
    {
      sticker_id: '38c5f8ad-d34a-4a5d-8b42-627c3e6543c1',
      signer_id: 'e5170200-5785-4d56-a8d0-99fde182bf52',
      sticker_index: 1,
      sticker_authority: 'SMS',
      sticker_data: '+525512345678',
      sticker_email: null,
      sticker_page: 1,
      sticker_coordinates: { lx: 50, ly: 50, tx: 250, ty: 120 },
      signer_url: 'https://sign.example.com/sign/YuxnKuNawWeuvm24wnjj4QcbUs9z7mWI8AiT2sF9RSI',
    },
  ],
  signer_fields: [],
  warnings: ['colour: unknown key; ignored'],
});

/** A signer as listings show it (document list, notification document). */
export const ListedSigner = Type.Object({
  signer_id: Type.String(),
  name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  authority: Type.String(),
  data: Type.String(),
  status: Type.String(),
});

/** The last SMS or WhatsApp message to a signer that failed for good (the document listing). */
export const DeliveryError = Type.Object(
  {
    channel: StringEnum(['sms', 'whatsapp']),
    kind: StringEnum(['invitation', 'reminder', 'otp']),
    code: Nullable(Type.String({ description: "the provider's error code (e.g. Twilio 21211), or PACKAGE_EXHAUSTED" })),
    reply: Nullable(Type.String({ description: "the provider's words" })),
    failed_at: DateTime(),
  },
  { description: 'the last message to this signer that could not be delivered; null when none failed' },
);

/** A signer in the document listing: as listed elsewhere, plus the last delivery failure. */
export const DocumentListSigner = Type.Composite([ListedSigner, Type.Object({ delivery_error: Nullable(DeliveryError) })]);

/** One long-term rendition or stamp of a document (docs/api.md "Long-term state of a document"). */
export const RenditionState = Type.Object({
  status: StringEnum(['pending', 'ready', 'failed'], {
    description:
      'pending: queued, being made, or retried after a failure; ready: made; failed: every attempt failed, nothing is retried until the operator acts',
  }),
  reason: Type.Optional(
    Type.String({
      description:
        'why the last attempt failed (pending: it is retried; failed: it is not); on a ready universal rendition, why its last renewal failed (the previous rendition is still served)',
    }),
  ),
});
export type RenditionState = Static<typeof RenditionState>;

/** The state of the long-term renditions, shown next to the document's status. */
export const ArchivalStateFields = {
  universal_rendition: Nullable(RenditionState, {
    description: 'the universal (PAdES B-LTA) rendition; null until the document is completed',
  }),
  nom151_stamps: Nullable(
    Type.Object({
      original: Nullable(RenditionState, { description: 'the stamp of the completed original; null until completion' }),
      universal: Nullable(RenditionState, {
        description: 'the stamp of the universal rendition; null until that rendition exists',
      }),
    }),
    { description: 'the NOM-151 stamps of a document created with nom151; null for a document without them' },
  ),
};
export const ArchivalState = Type.Object(ArchivalStateFields);
export type ArchivalState = Static<typeof ArchivalState>;
examples(ArchivalState, {
  universal_rendition: { status: 'failed', reason: 'OCSP for O=Sello, CN=Ana García: the responder is unavailable' },
  nom151_stamps: {
    original: { status: 'pending', reason: 'the NOM-151 provider answered HTTP 503; nothing was stamped, try again later' },
    universal: null,
  },
});

export const DocumentListQuery = Type.Object({
  from: Type.Optional(Type.String({ description: 'epoch milliseconds, inclusive (default 0)' })),
  to: Type.Optional(Type.String({ description: 'epoch milliseconds, inclusive (default now)' })),
  limit: Type.Optional(Type.String({ description: '1..500, default 100' })),
  nextToken: Type.Optional(Type.String({ description: 'from the previous page' })),
});

export const DocumentListing = Type.Object({
  documents: Type.Array(
    Type.Object({
      document_ticket: Type.String(),
      name: Type.String(),
      status: Type.String(),
      created_at: DateTime(),
      signers: Type.Array(DocumentListSigner),
      signed_count: Type.Integer(),
      ...ArchivalStateFields,
    }),
  ),
  nextToken: Type.Optional(Type.String({ description: 'absent on the last page' })),
});
export type DocumentListing = Static<typeof DocumentListing>;
examples(DocumentListing, {
  documents: [
    {
      document_ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14',
      name: 'Contract.pdf',
      status: 'pending',
      created_at: '2026-11-22T02:52:15.248Z',
      signers: [
        {
          signer_id: '75dd5827-0af9-48ce-bc38-bab518ec8e07',
          name: 'Ana',
          email: 'ana@example.com',
          authority: 'EMAIL_LINK',
          data: 'ana@example.com',
          status: 'pending',
          delivery_error: null,
        },
        {
          signer_id: 'e5170200-5785-4d56-a8d0-99fde182bf52',
          name: null,
          email: null,
          authority: 'SMS',
          data: '+525512345678',
          status: 'pending',
          delivery_error: {
            channel: 'sms',
            kind: 'invitation',
            code: '21211',
            reply: "The 'To' number +525512345678 is not a valid phone number.",
            failed_at: '2026-11-22T02:52:19.031Z',
          },
        },
      ],
      signed_count: 0,
      universal_rendition: null,
      nom151_stamps: { original: null, universal: null },
    },
  ],
  nextToken: 'WzE3OTUzMTU5MzUyNDgsIjQyIl0',
});

export const FILE_TYPES = ['original', 'universal', 'source'] as const;
export const DownloadParams = Type.Object({ type: StringEnum(FILE_TYPES), ticket: Type.String() });
export const DownloadResponse = Type.Object(
  { hash: Type.String({ description: 'SHA-256, lower-case hex' }), name: Type.String() },
  { additionalProperties: Type.String(), description: '{"<type>": base64, "hash", "name"}' },
);
examples(DownloadResponse, {
  hash: '92353c918ece191a3f0747a7b8d87df5c94961b21aa699474df50ef495a84d0e',
  name: 'Contract.pdf',
  original: 'JVBERi0xLjcK...',
} as Static<typeof DownloadResponse>);

export const DeleteOrRestoreBody = Type.Object({ ticket: Type.String({ minLength: 1 }), action: StringEnum(['delete', 'restore']) });
export type DeleteOrRestoreBody = Static<typeof DeleteOrRestoreBody>;
examples(DeleteOrRestoreBody, { ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14', action: 'delete' });
/** The body of the older public clients' POST /developers/delete/ and /developers/restore/. */
export const TicketBody = Type.Object({ ticket: Type.String({ minLength: 1 }) });
examples(TicketBody, { ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14' });
export const DeleteOrRestoreResult = Type.Object({ document_ticket: Type.String(), status: Type.String() });
export type DeleteOrRestoreResult = Static<typeof DeleteOrRestoreResult>;
examples(DeleteOrRestoreResult, { document_ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14', status: 'deleted' });

export const PageDataResult = Type.Object({
  page: Type.Integer(),
  pages: Type.Integer(),
  width: Type.Number(),
  height: Type.Number(),
  rotation: Type.Integer(),
});
export type PageDataResult = Static<typeof PageDataResult>;
examples(PageDataResult, { page: 1, pages: 2, width: 612, height: 792, rotation: 0 });

/** multipart/form-data: the PDF in part `file`, `page` a form field (read by http/multipart.ts). */
// Multipart: the handler reads the parts as a stream (http/multipart.ts) once Content-SHA256 is
// checked; there is no parsed body for the validator to check before.
export const PrintUpload = Type.Object(
  { file: Type.String({ format: 'binary', description: 'the PDF' }) },
  { ...checkedByUseCase, description: 'multipart/form-data; the signature is over the Content-SHA256 header' },
);

// Multipart: the handler reads the parts as a stream (http/multipart.ts) once Content-SHA256 is
// checked; there is no parsed body for the validator to check before.
export const PageDataUpload = Type.Object(
  {
    file: Type.String({ format: 'binary', description: 'the PDF' }),
    page: Type.Optional(Type.String({ description: '0-based, default 0' })),
  },
  { ...checkedByUseCase, description: 'multipart/form-data; the signature is over the Content-SHA256 header' },
);
