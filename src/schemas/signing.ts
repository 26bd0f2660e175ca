// The signing APIs behind the signer pages: a personal link (/sign/api/{token}), a set link
// (/sign/api/set/{token}) and document_url (/sign/api/document/{ticket}). No HMAC: the token or
// the ticket is what gives access (routes/signing.ts, set-signing.ts, document-page.ts).
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageLanguage, PageSize, Rect, StringEnum, TicketParam } from './common.js';

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
});
export type SignBody = Static<typeof SignBody>;

export const RejectBody = Type.Object({ reason: Type.String({ description: 'at most 300 characters as people count them' }) });
// The code is trimmed before it is compared: the pattern allows what a pasted code carries.
export const CodeBody = Type.Object({ code: Type.String({ pattern: '^\\s*[0-9]{6}\\s*$', description: 'the six digits sent' }) });

const HOW_PROVEN = ['link', 'email_code', 'not_available'] as const;
const SignerBox = Type.Object({ sticker_id: Type.String(), page: Type.Integer({ description: '0-based' }), rect: Rect });
const OtherSigner = Type.Object({ name: Nullable(Type.String()), status: Type.String() });

/** Who asks for the signature: the account's display name and logo (sello account update). */
const Sender = Type.Object({
  name: Type.String({ description: "the account's display name" }),
  logo: Nullable(Type.String({ description: "the account's logo as a data:image/png;base64 URL" })),
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
    proof: StringEnum(HOW_PROVEN, { description: 'how identity is proven: the link itself, or a code sent by email' }),
    verified: Type.Boolean({ description: 'EMAIL: a code was verified recently enough to sign now' }),
  }),
  boxes: Type.Array(SignerBox),
  signers: Type.Array(OtherSigner),
  language: PageLanguage,
  sender: Sender,
  message: Nullable(Type.String({ description: "the workflow's message to the signers" })),
  default_language: DefaultLanguage,
});
export type SigningInfo = Static<typeof SigningInfo>;

export const SignResult = Type.Object({ status: Type.Literal('signed'), signed_at: DateTime(), document_status: Type.String() });
export type SignResult = Static<typeof SignResult>;

export const RejectResult = Type.Object({ status: Type.Literal('rejected'), rejected_at: DateTime(), document_status: Type.String() });
export type RejectResult = Static<typeof RejectResult>;

export const CodeSent = Type.Object({
  status: Type.Literal('sent'),
  to: Type.String({ description: 'the address, masked' }),
  expires_at: DateTime(),
});
export type CodeSent = Static<typeof CodeSent>;

export const CodeVerified = Type.Object({ status: Type.Literal('verified'), verified_at: DateTime() });
export type CodeVerified = Static<typeof CodeVerified>;

export const SetDocument = Type.Object({
  document_ticket: Type.String(),
  name: Type.String(),
  status: Type.String(),
  signer_status: Type.String(),
  signed_at: Nullable(DateTime()),
  pages: Type.Array(PageSize),
  boxes: Type.Array(SignerBox),
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
    verified: Type.Boolean(),
    due: Type.Boolean({ description: 'false while an ordered flow has not reached this signer' }),
  }),
  signers: Type.Array(OtherSigner),
  documents: Type.Array(SetDocument),
  language: PageLanguage,
  sender: Sender,
  message: Nullable(Type.String({ description: "the set workflow's message to the signers" })),
  default_language: DefaultLanguage,
});
export type SetSigningInfo = Static<typeof SetSigningInfo>;

export const SetSignResult = Type.Object({
  status: Type.Literal('signed'),
  signed_at: DateTime(),
  set_status: Type.String(),
  documents: Type.Array(Type.Object({ document_ticket: Type.String(), status: Type.String(), signer_status: Type.String() })),
});
export type SetSignResult = Static<typeof SetSignResult>;

export const SetRejectResult = Type.Object({
  status: Type.Literal('rejected'),
  rejected_at: DateTime(),
  rejected_document: Type.String(),
  set_status: Type.String(),
});
export type SetRejectResult = Static<typeof SetRejectResult>;

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
        }),
      }),
    ]),
  ),
  language: PageLanguage,
});
export type DocumentPage = Static<typeof DocumentPage>;

export const LinkRequestBody = Type.Object({
  sticker_id: Type.String({ description: 'The box chosen' }),
  data: Type.String({ description: "The signer's email address (compared trimmed, ignoring case)" }),
});

export const LinkAnswer = Type.Object({ status: Type.Literal('sent_if_matching'), message: Type.String() });
export type LinkAnswer = Static<typeof LinkAnswer>;
