// The public verification of a document (GET /verify/{ticket}.json, and the HTML page built from
// the same data): what anyone holding the ticket may learn, masked as verify-document.ts explains.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum } from './common.js';
import { examples } from './common.js';

/** One signature of the current original, as the public may see it. */
export const PublicSignature = Type.Object({
  signer_name: Type.String({
    description: 'the name the certificate states; masked (j***@example.com) when it is an email address or phone number',
  }),
  email: Type.String({ description: "the certificate's (else the signer's) email address, masked: j***@example.com; '' without one" }),
  authority: Type.String({ description: "how the signer proved who they are (EMAIL_LINK, EMAIL, ...); '' for a signature made elsewhere" }),
  signed_at: DateTime('the time the time stamp proves, else the time the signature claims'),
  valid: Type.Boolean({ description: 'the signature verifies over the bytes of the revision it signed' }),
  covers_document: Type.Boolean({ description: 'no revision was appended after the one it signed' }),
  revision: Type.Integer({ description: 'the revision (1-based) the signature closes, of total_revisions' }),
  total_revisions: Type.Integer(),
  timestamp: Nullable(Type.Object({ time: DateTime(), authority: Type.String() }), {
    description: 'the signature time stamp, when one is embedded and verifies',
  }),
  certificate_trusted: Type.Boolean({ description: "the signer's certificate chains to the service's root at the signing time" }),
  certificate_status: StringEnum(['good', 'revoked', 'unknown'] as const, {
    description: "from the service's register of issued certificates; unknown for a certificate it did not issue",
  }),
  modified_after_signing: Type.Boolean({
    description: 'a later revision changed something this signature does not allow (modifiedAfterSigning of the report)',
  }),
  verified: Type.Boolean({
    description: 'the verdict: valid, trusted, not modified after signing, and the certificate good (or revoked only after the time stamp)',
  }),
});
export type PublicSignature = Static<typeof PublicSignature>;

/** A signer who has not signed (nor rejected) yet. */
export const PublicPendingSigner = Type.Object({
  name: Type.String({ description: "masked: the first letter of each word (A*** G***); '' when the sender gave no name" }),
  identifier: Type.String({ description: 'the email address or phone number, masked' }),
  authority: Type.String(),
});
export type PublicPendingSigner = Static<typeof PublicPendingSigner>;

export const PublicVerification = Type.Object({
  ticket: Type.String(),
  name: Type.String(),
  status: StringEnum(['draft', 'pending', 'completed', 'rejected', 'expired', 'cancelled'] as const),
  created_at: DateTime(),
  page_count: Type.Integer(),
  sha256: Type.String({ description: 'SHA-256 (hex) of the current original: every signature so far included' }),
  signatures: Type.Array(PublicSignature),
  pending_signers: Type.Array(PublicPendingSigner),
});
export type PublicVerification = Static<typeof PublicVerification>;
examples(PublicVerification, {
  ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14',
  name: 'Contract.pdf',
  status: 'pending',
  created_at: '2026-11-22T03:09:58.114Z',
  page_count: 2,
  sha256: '4f5a0c2a9c7f3d1e8b6a5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f',
  signatures: [
    {
      signer_name: 'Ana García',
      email: 'a***@example.com',
      authority: 'EMAIL_LINK',
      signed_at: '2026-11-22T03:10:42.000Z',
      valid: true,
      covers_document: true,
      revision: 3,
      total_revisions: 3,
      timestamp: { time: '2026-11-22T03:10:42.000Z', authority: 'O=Sello, CN=Sello Time-Stamping Authority' },
      certificate_trusted: true,
      certificate_status: 'good',
      modified_after_signing: false,
      verified: true,
    },
  ],
  pending_signers: [{ name: 'B*** D***', identifier: 'b***@example.com', authority: 'EMAIL_LINK' }],
});

/** One signature of a file dropped on the public page (POST /verify): what the file itself says. */
export const PublicFileSignature = Type.Object({
  field: Type.String(),
  signer_name: Type.String({ description: "the signer certificate's common name" }),
  issuer_name: Type.String({ description: "the common name of the authority that issued the signer's certificate" }),
  signed_at: Type.String({ description: "ISO 8601: the time stamp's time, else the time the signature claims; '' when none" }),
  valid: Type.Boolean(),
  trusted: Type.Boolean({ description: "the signer's certificate chains to this service's root" }),
  modified_after_signing: Type.Boolean(),
  level: Type.String(),
  problem: Type.String({ description: "why the signature is not valid; '' when it is" }),
  rule: Type.String({ description: "the rule the signature breaks (the report's problem.rule); '' when valid" }),
});
export type PublicFileSignature = Static<typeof PublicFileSignature>;

export const PublicFileVerification = Type.Object({
  sha256: Type.String(),
  document_integrity: StringEnum(['intact', 'modified', 'invalid'] as const),
  signatures: Type.Array(PublicFileSignature),
  attacks: Type.Array(Type.String()),
  changes: Type.Array(
    Type.Object(
      {
        revision: Type.Integer(),
        object: Type.Integer(),
        kind: StringEnum(['added', 'changed', 'removed'] as const),
        category: Type.String(),
        description: Type.String(),
      },
      { description: 'a change a signature does not allow, as the report describes it' },
    ),
  ),
});
export type PublicFileVerification = Static<typeof PublicFileVerification>;
