// The signing APIs behind the signer pages: a personal link (/sign/api/{token}), a set link
// (/sign/api/set/{token}) and document_url (/sign/api/document/{ticket}). No HMAC: the token or
// the ticket is what gives access (routes/signing.ts, set-signing.ts, document-page.ts).
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageLanguage, PageSize, Rect, StringEnum, TicketParam } from './common.js';
import { IdentityState } from './identity.js';
import { examples } from './common.js';
import { FieldValues, SignerFieldView } from './signer-fields.js';

export const TokenParams = Type.Object({ token: Type.String({ description: 'the token of a personal signing link' }) });
export const SetTokenParams = Type.Object({ token: Type.String({ description: 'the token of a set link' }) });
export const SetDocumentParams = Type.Object({ token: Type.String(), ticket: TicketParam() });
export const PageTicketParams = Type.Object({ ticket: TicketParam('The document_ticket (last path segment of document_url)') });

/** The body of a signature through the signing API (a document link or a set link). */
export const SignBody = Type.Object({
  signature: Type.Union([
    Type.Object({ type: Type.Literal('drawn'), image: Type.String({ description: 'data:image/png;base64,...' }) }),
    Type.Object({ type: Type.Literal('typed'), text: Type.String({ description: '1 to 100 characters, trimmed' }) }),
  ]),
  consent: Type.Literal(true),
  language: Type.Optional(
    StringEnum(['es', 'en'], {
      description: "the page's language: the signature's legend is drawn in it when the workflow sets none",
    }),
  ),
  field_values: Type.Optional(FieldValues),
});
export type SignBody = Static<typeof SignBody>;
examples(
  SignBody,
  { signature: { type: 'drawn', image: 'data:image/png;base64,iVBORw0KGgo...' }, consent: true },
  { signature: { type: 'typed', text: 'Ana Pérez' }, consent: true },
);

export const RejectBody = Type.Object({ reason: Type.String({ description: 'at most 300 characters as people count them' }) });
export type RejectBody = Static<typeof RejectBody>;
examples(RejectBody, { reason: 'The amount in clause 3 is wrong.' });
// The code is trimmed before it is compared: the pattern allows what a pasted code carries.
export const CodeBody = Type.Object({ code: Type.String({ pattern: '^\\s*[0-9]{6}\\s*$', description: 'the six digits sent' }) });
export type CodeBody = Static<typeof CodeBody>;
examples(CodeBody, { code: '482913' });

const HOW_PROVEN = ['link', 'email_code', 'sms_code', 'whatsapp_code', 'efirma', 'certificate', 'remote', 'not_available'] as const;
const SignerBox = Type.Object({ sticker_id: Type.String(), page: Type.Integer({ description: '0-based' }), rect: Rect });
const OtherSigner = Type.Object({ name: Nullable(Type.String()), status: Type.String() });

/** Who asks for the signature: the account's display name, logo and brand (sello account update). */
const Sender = Type.Object({
  name: Type.String({ description: "the account's display name" }),
  logo: Nullable(Type.String({ description: "the account's logo as a data:image/png;base64 URL" })),
  brand_name: Nullable(Type.String({ description: 'the name beside the logo in the header; null: the display name' })),
  brand_colour: Nullable(Type.String({ description: '#rrggbb of the header and buttons; null: the service default' })),
  hide_sello: Type.Boolean({ description: "whether the page leaves Sello's name out" }),
});
const DefaultLanguage = StringEnum(['es', 'en'], {
  description: "the page's language when neither the workflow nor the browser names one it speaks (SELLO_DEFAULT_LANGUAGE)",
});

export const SigningInfo = Type.Object({
  document: Type.Object({ ticket: Type.String(), name: Type.String(), status: Type.String() }),
  pages: Type.Array(PageSize),
  signer: Type.Object({
    signer_id: Type.String(),
    name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    authority: Type.String(),
    status: Type.String(),
    signed_at: Nullable(DateTime()),
    proof: StringEnum(HOW_PROVEN, {
      description:
        "how identity is proven: the link itself, a code sent by email, SMS or WhatsApp, , the signer's own SAT e.firma (/sat/prepare, /sat/finish) their own certificate (/certificate/prepare, /certificate/finish) or a credential at their trust service provider (remote: /csc/authorize)",
    }),
    rfc: Nullable(Type.String({ description: 'SAT: the RFC the e.firma must be for; null for other authorities' })),
    verified: Type.Boolean({ description: 'EMAIL, SMS, WHATSAPP: a code was verified recently enough to sign now' }),
    identity: IdentityState,
  }),
  boxes: Type.Array(SignerBox),
  signers: Type.Array(OtherSigner),
  language: PageLanguage,
  sender: Sender,
  message: Nullable(Type.String({ description: "the workflow's message to the signers" })),
  default_language: DefaultLanguage,
  endorsement: Nullable(
    Type.Object({
      endorsement_id: Type.String(),
      type: StringEnum(['propiedad', 'procuracion', 'garantia']),
      text: Type.String(),
      endorsee: Type.Object({ name: Type.String() }),
      status: StringEnum(['pending', 'signed', 'declined']),
    }),
    { description: "this link's endorsement of the completed document, when the link is an endorser's; else null" },
  ),
  signer_fields: Type.Array(SignerFieldView, { description: 'the fields this signer fills before signing' }),
});
export type SigningInfo = Static<typeof SigningInfo>;
examples(SigningInfo, {
  document: { ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14', name: 'Contract.pdf', status: 'pending' },
  pages: [{ page: 0, width: 595.28, height: 841.89, rotation: 0 }],
  signer: {
    signer_id: '75dd5827-0af9-48ce-bc38-bab518ec8e07',
    name: 'Ana',
    email: 'ana@example.com',
    authority: 'EMAIL_LINK',
    status: 'viewed',
    signed_at: null,
    proof: 'link',
    rfc: null,
    verified: true,
    identity: { required: false, status: null, captured: [], submitted: false, provider: null, reason: null, retry: false, documents: 0 },
  },
  boxes: [{ sticker_id: 'd36d2a42-799f-4b97-8e6f-767d5f4b4d0a', page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } }],
  signers: [
    { name: 'Ana', status: 'viewed' },
    { name: null, status: 'pending' },
  ],
  language: null,
  sender: { name: 'Acme Legal', logo: null, brand_name: null, brand_colour: null, hide_sello: false },
  message: 'Please sign before Friday.',
  default_language: 'es',
  endorsement: null,
  signer_fields: [
    {
      id: 'f3c1d2e4-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
      type: 'text',
      page: 0,
      rect: { lx: 50, ly: 140, tx: 250, ty: 160 },
      required: true,
      label: 'Email',
      format: 'email',
      options: null,
      date_format: null,
    },
    {
      id: '0b9a8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d',
      type: 'date',
      page: 0,
      rect: { lx: 270, ly: 140, tx: 370, ty: 160 },
      required: false,
      label: 'Date',
      format: null,
      options: null,
      date_format: 'DD/MM/YYYY',
      value: '22/11/2026',
      time_zone: 'America/Mexico_City',
    },
  ],
});

export const SignResult = Type.Object({ status: Type.Literal('signed'), signed_at: DateTime(), document_status: Type.String() });
export type SignResult = Static<typeof SignResult>;
examples(SignResult, { status: 'signed', signed_at: '2026-11-22T03:10:42.512Z', document_status: 'pending' });

export const RejectResult = Type.Object({ status: Type.Literal('rejected'), rejected_at: DateTime(), document_status: Type.String() });
export type RejectResult = Static<typeof RejectResult>;
examples(RejectResult, { status: 'rejected', rejected_at: '2026-11-22T03:11:05.020Z', document_status: 'rejected' });

export const CodeSent = Type.Object({
  status: Type.Literal('sent'),
  to: Type.String({ description: 'the address, masked' }),
  expires_at: DateTime(),
});
export type CodeSent = Static<typeof CodeSent>;
examples(CodeSent, { status: 'sent', to: 'a***@example.com', expires_at: '2026-11-22T03:20:42.000Z' });

export const CodeVerified = Type.Object({ status: Type.Literal('verified'), verified_at: DateTime() });
export type CodeVerified = Static<typeof CodeVerified>;
examples(CodeVerified, { status: 'verified', verified_at: '2026-11-22T03:11:30.000Z' });

export const SetDocument = Type.Object({
  document_ticket: Type.String(),
  name: Type.String(),
  status: Type.String(),
  signer_status: Type.String(),
  signed_at: Nullable(DateTime()),
  pages: Type.Array(PageSize),
  boxes: Type.Array(SignerBox),
  signer_fields: Type.Array(SignerFieldView, { description: 'the fields this signer fills in this document' }),
  pdf_url: Type.String(),
});
export type SetDocument = Static<typeof SetDocument>;

export const SetSigningInfo = Type.Object({
  set: Type.Object({ uuid: Type.String(), name: Type.String(), status: Type.String() }),
  signer: Type.Object({
    signer_id: Type.String(),
    name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    authority: Type.String(),
    status: Type.String(),
    signed_at: Nullable(DateTime()),
    proof: StringEnum(HOW_PROVEN),
    rfc: Nullable(Type.String({ description: 'SAT signers: the RFC their e.firma must carry; null otherwise' })),
    verified: Type.Boolean(),
    due: Type.Boolean({ description: 'false while an ordered flow has not reached this signer' }),
    identity: IdentityState,
  }),
  signers: Type.Array(OtherSigner),
  documents: Type.Array(SetDocument),
  language: PageLanguage,
  sender: Sender,
  message: Nullable(Type.String({ description: "the set workflow's message to the signers" })),
  default_language: DefaultLanguage,
});
export type SetSigningInfo = Static<typeof SetSigningInfo>;
examples(SetSigningInfo, {
  set: { uuid: '664a6790-db83-4db0-bc94-2e313049a434', name: 'Onboarding', status: 'CLOSED' },
  signer: {
    signer_id: '5b0f0b8e-2d4e-4f7c-9a51-0f3f7d1c2a10',
    name: 'Ana García',
    email: 'ana@example.com',
    authority: 'EMAIL_LINK',
    status: 'pending',
    signed_at: null,
    proof: 'link',
    rfc: null,
    verified: true,
    due: true,
    identity: { required: false, status: null, captured: [], submitted: false, provider: null, reason: null, retry: false, documents: 0 },
  },
  signers: [
    { name: 'Ana García', status: 'pending' },
    { name: 'Bruno', status: 'pending' },
  ],
  documents: [
    {
      document_ticket: '0bd0b4ad-d0f7-48c5-b4a8-27ba5e56fda7',
      name: 'document.pdf',
      status: 'pending',
      signer_status: 'pending',
      signed_at: null,
      pages: [{ page: 0, width: 612, height: 792, rotation: 0 }],
      boxes: [{ sticker_id: 'a1f3c9e2-6b7d-4e8f-9a0b-1c2d3e4f5a6b', page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } }],
      signer_fields: [],
      pdf_url: '/sign/api/set/Jx3K9pQe8/document/0bd0b4ad-d0f7-48c5-b4a8-27ba5e56fda7/pdf',
    },
  ],
  language: 'en',
  sender: { name: 'Acme Legal', logo: null, brand_name: null, brand_colour: null, hide_sello: false },
  message: 'Please sign before Friday.',
  default_language: 'es',
});

export const SetSignResult = Type.Object({
  status: Type.Literal('signed'),
  signed_at: DateTime(),
  set_status: Type.String(),
  documents: Type.Array(Type.Object({ document_ticket: Type.String(), status: Type.String(), signer_status: Type.String() })),
});
export type SetSignResult = Static<typeof SetSignResult>;
examples(SetSignResult, {
  status: 'signed',
  signed_at: '2026-11-22T03:10:42.512Z',
  set_status: 'CLOSED',
  documents: [{ document_ticket: '0bd0b4ad-d0f7-48c5-b4a8-27ba5e56fda7', status: 'pending', signer_status: 'signed' }],
});

export const SetRejectResult = Type.Object({
  status: Type.Literal('rejected'),
  rejected_at: DateTime(),
  rejected_document: Type.String(),
  set_status: Type.String(),
});
export type SetRejectResult = Static<typeof SetRejectResult>;
examples(SetRejectResult, {
  status: 'rejected',
  rejected_at: '2026-11-22T03:11:05.020Z',
  rejected_document: '0bd0b4ad-d0f7-48c5-b4a8-27ba5e56fda7',
  set_status: 'REJECTED',
});

export const DocumentPage = Type.Object({
  document: Type.Object({ ticket: Type.String(), name: Type.String(), status: Type.String() }),
  pages: Type.Array(PageSize),
  boxes: Type.Array(
    Type.Composite([
      SignerBox,
      Type.Object({
        signer: Type.Object({
          label: Type.String({
            description: "The signer's data masked (j***@example.com, +52********78), after their name masked (A*** G***) when given",
          }),
          authority: Type.String(),
          status: Type.String(),
          link_by: Nullable(
            StringEnum(['email', 'phone'], {
              description:
                'what the signer types to ask for their link (their email address, or their phone number for SMS and WHATSAPP); null: this signer cannot ask here',
            }),
          ),
        }),
      }),
    ]),
  ),
  language: PageLanguage,
});
export type DocumentPage = Static<typeof DocumentPage>;
examples(DocumentPage, {
  document: { ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14', name: 'Contract.pdf', status: 'pending' },
  pages: [{ page: 0, width: 595.28, height: 841.89, rotation: 0 }],
  boxes: [
    {
      sticker_id: 'd36d2a42-799f-4b97-8e6f-767d5f4b4d0a',
      page: 0,
      rect: { lx: 50, ly: 50, tx: 250, ty: 120 },
      signer: { label: 'A*** G*** · a***@example.com', authority: 'EMAIL_LINK', status: 'pending', link_by: 'email' },
    },
    {
      sticker_id: '5b0f5d0e-2c55-4c9e-b3d4-6a1f2f0a7c11',
      page: 0,
      rect: { lx: 320, ly: 50, tx: 520, ty: 120 },
      signer: { label: 'j***@example.com', authority: 'EMAIL_LINK', status: 'signed', link_by: 'email' },
    },
  ],
  language: null,
});

export const LinkRequestBody = Type.Object({
  sticker_id: Type.String({ description: 'The box chosen' }),
  data: Type.String({
    description:
      "The signer's email address (compared trimmed, ignoring case); for SMS and WHATSAPP boxes their phone number; for SAT boxes the email address the sender gave for them",
  }),
});
examples(LinkRequestBody, { sticker_id: 'd36d2a42-799f-4b97-8e6f-767d5f4b4d0a', data: 'ana@example.com' });

export const LinkAnswer = Type.Object({ status: Type.Literal('sent_if_matching'), message: Type.String() });
export type LinkAnswer = Static<typeof LinkAnswer>;
examples(LinkAnswer, {
  status: 'sent_if_matching',
  message: 'if this address belongs to the signer of that box, a personal signing link was sent to it',
});
