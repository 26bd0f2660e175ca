// NOM-151 stamps and time stamps (routes/stamps.ts): stamp a hash or a PDF, validate a stamp, list
// a document's stamps and download the bytes one covers (decisions.md "Long-term validity and NOM-151").
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, TicketParam, checkedByUseCase, examples } from './common.js';

const Provider = StringEnum(['built_in', 'psc'], {
  description: "`built_in`: the service's own time-stamp authority, not an accredited PSC; `psc`: the operator's NOM-151 provider",
});
const Hex256 = (description: string) => Type.String({ pattern: '^[0-9a-f]{64}$', description });

const EXAMPLE = {
  stamp: 'MIIHZwYJKoZIhvcNAQcCoIIHWDCCB1QCAQMxDTALBglghkgBZQMEAgEwgd4GCyqGSIb3DQEJEAEEoIHOBIHL...',
  tsa: 'O=Sello, CN=Sello Time-Stamping Authority',
  gen_time: '2026-11-23T17:04:05.000Z',
  serial: '5f1c0e2a9b7d4c31a8e6f0b2d4c6e8a0',
  hash: '92353c918ece191a3f0747a7b8d87df5c94961b21aa699474df50ef495a84d0e',
  provider: 'built_in' as const,
  provider_description: "the service's own time-stamp authority, not an accredited NOM-151 certification-service provider (PSC)",
};

const stampFields = {
  stamp: Type.String({ description: 'Base64 of the DER RFC 3161 TimeStampToken' }),
  tsa: Type.String({ description: "subject of the authority's certificate" }),
  gen_time: DateTime('the time the token attests (genTime), ISO 8601'),
  serial: Type.String({ description: "the token's serial number, hex" }),
  provider: Provider,
  provider_description: Type.String({ description: 'the provider kind, in words' }),
};

// The hash's two spellings (hex or Base64, whose last character must leave no stray bits) are
// read by parseSha256, whose refusal names the field and says what a SHA-256 looks like.
export const StampHashBody = Type.Object(
  { hash: Type.String({ description: 'SHA-256 of the data: 64 hex digits, or 32 bytes in Base64' }) },
  { additionalProperties: true },
);
examples(StampHashBody, { hash: EXAMPLE.hash });

export const StampAnswer = Type.Object({ ...stampFields, hash: Hex256('the SHA-256 the token attests, hex') });
export type StampAnswer = Static<typeof StampAnswer>;
examples(StampAnswer, EXAMPLE);

export const ValidateTimestampBody = Type.Object(
  {
    hash: Type.Optional(Type.String({ description: 'SHA-256 of the data (hex or Base64); or give file' })),
    file: Type.Optional(Type.String({ description: 'the data itself, Base64; or give hash' })),
    timestamp: Type.String({ description: 'Base64 of the TimeStampToken (a whole TimeStampResp is accepted too)' }),
  },
  // "Exactly one of hash and file" is validateTimestamp's: a oneOf here would name neither field.
  { additionalProperties: true, description: 'Exactly one of hash and file' },
);
examples(ValidateTimestampBody, { hash: EXAMPLE.hash, timestamp: EXAMPLE.stamp });

const Checks = Type.Object({
  well_formed: Type.Boolean({ description: 'an RFC 3161 TimeStampToken' }),
  imprint_matches: Type.Boolean({ description: 'it attests SHA-256 of this data' }),
  signature_valid: Type.Boolean({ description: "the authority's signature over it verifies" }),
  chain_trusted: Type.Boolean({ description: "the authority's certificate chains to a root the service trusts" }),
  authority_recognized: Type.Boolean({ description: 'the authority is the built-in one or the configured PSC' }),
});

const tokenCheckFields = {
  valid: Type.Boolean(),
  checks: Checks,
  problem: Nullable(Type.String(), { description: 'the first check that failed, in words' }),
  tsa: Nullable(Type.String()),
  provider: Nullable(Provider),
  provider_description: Nullable(Type.String()),
  gen_time: Nullable(DateTime()),
  serial: Nullable(Type.String()),
  stamped_hash: Nullable(Type.String({ description: 'the SHA-256 the token attests, hex' })),
};

const VALID_CHECK = {
  valid: true,
  checks: { well_formed: true, imprint_matches: true, signature_valid: true, chain_trusted: true, authority_recognized: true },
  problem: null,
  tsa: EXAMPLE.tsa,
  provider: EXAMPLE.provider,
  provider_description: EXAMPLE.provider_description,
  gen_time: EXAMPLE.gen_time,
  serial: EXAMPLE.serial,
  stamped_hash: EXAMPLE.hash,
};

export const TimestampValidation = Type.Object({ ...tokenCheckFields, hash: Hex256('the SHA-256 checked against, hex') });
export type TimestampValidation = Static<typeof TimestampValidation>;
examples(TimestampValidation, { ...VALID_CHECK, hash: EXAMPLE.hash });

// Multipart: the handler reads the parts as a stream (http/multipart.ts) once Content-SHA256 is
// checked; there is no parsed body for the validator to check before.
export const PdfUpload = Type.Object(
  { file: Type.String({ format: 'binary', description: 'the PDF' }) },
  { ...checkedByUseCase, description: 'multipart/form-data; the signature is over the Content-SHA256 header' },
);

export const StampedPdf = Type.Object({
  pdf: Type.String({ description: 'Base64 of the PDF with the stamp applied as a document time stamp revision' }),
  pdf_sha256: Hex256('SHA-256 of the returned PDF'),
  ...stampFields,
  hash: Hex256('the SHA-256 the token attests: of the bytes the time stamp /ByteRange covers'),
});
export type StampedPdf = Static<typeof StampedPdf>;
examples(StampedPdf, {
  pdf: 'JVBERi0xLjcK...',
  pdf_sha256: 'a3f1c9e0b2d4c6e8a0f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6e5f4a3b',
  ...EXAMPLE,
});

const RevisionChange = Type.Object({
  revision: Type.Integer(),
  signatures: Type.Array(Type.String(), { description: 'fields whose signature this revision added' }),
  document_timestamps: Type.Array(Type.String(), { description: 'fields whose document time stamp this revision added' }),
  dss: Type.Boolean({ description: 'validation data (DSS) added or changed' }),
  other: Type.Array(Type.String(), { description: 'any other change, in words' }),
});

export const PdfStampsValidation = Type.Object({
  valid: Type.Boolean({ description: 'at least one stamp, and every stamp valid' }),
  revisions: Type.Integer({ description: 'revisions of the file' }),
  stamps: Type.Array(
    Type.Object({
      ...tokenCheckFields,
      rule: Nullable(
        Type.String({
          description:
            "the rule of the signature verifier the stamp breaks, as the signature report's problem.rule (e.g. byte-range-duplicated, contents-gap-mismatch); null when it breaks none",
        }),
      ),
      field_name: Type.String(),
      revision: Type.Integer({ description: 'the revision the stamp closes, from 1' }),
      covers_revision: Type.Boolean({ description: 'its /ByteRange covers all of its revision but the token' }),
      hash: Nullable(Type.String({ description: 'SHA-256 of the covered bytes, hex' })),
      stamp: Type.String({ description: 'Base64 of the token' }),
      modified_after_stamp: Type.Boolean({
        description:
          "the signature verifier's verdict: a later revision changed what the stamp covers (beyond signatures, form filling, DSS and document time stamps)",
      }),
      modifications: Type.Array(
        Type.Object({
          revision: Type.Integer(),
          object: Type.Integer(),
          kind: StringEnum(['added', 'changed', 'removed']),
          description: Type.String(),
        }),
        { description: 'the changes after the stamp that it does not allow, as the signature report names them' },
      ),
      changes_after: Type.Object({
        changed: Type.Boolean({ description: 'a revision follows the stamped one' }),
        only_signatures_dss_timestamps: Type.Boolean({ description: 'those revisions only add signatures, DSS or document time stamps' }),
        revisions: Type.Array(RevisionChange),
      }),
    }),
  ),
});
export type PdfStampsValidation = Static<typeof PdfStampsValidation>;
examples(PdfStampsValidation, {
  valid: true,
  revisions: 3,
  stamps: [
    {
      ...VALID_CHECK,
      rule: null,
      field_name: 'Timestamp_1',
      revision: 2,
      covers_revision: true,
      hash: EXAMPLE.hash,
      stamp: EXAMPLE.stamp,
      modified_after_stamp: false,
      modifications: [],
      changes_after: {
        changed: true,
        only_signatures_dss_timestamps: true,
        revisions: [{ revision: 3, signatures: ['Sello-1'], document_timestamps: [], dss: false, other: [] }],
      },
    },
  ],
});

export const StampsParams = Type.Object({ ticket: TicketParam() });
export const StampPdfParams = Type.Object({
  ticket: TicketParam(),
  stampHash: Type.String({ description: 'SHA-256 (hex) of the stamped bytes, as the stamp list gives it' }),
});

const Rendition = StringEnum(['original', 'universal']);

export const StampList = Type.Object({
  stamps: Type.Array(Type.Object({ rendition: Rendition, ...stampFields, hash: Hex256('SHA-256 of the exact bytes stamped') })),
});
export type StampList = Static<typeof StampList>;
examples(StampList, { stamps: [{ rendition: 'original', ...EXAMPLE }] });

export const StampedRevision = Type.Object({
  pdf: Type.String({ description: 'Base64 of the exact bytes the stamp covers' }),
  hash: Hex256('their SHA-256: the stamp imprint'),
  name: Type.String(),
  rendition: Rendition,
  ...stampFields,
});
export type StampedRevision = Static<typeof StampedRevision>;
examples(StampedRevision, { pdf: 'JVBERi0xLjcK...', name: 'Contract.pdf', rendition: 'original', ...EXAMPLE });
