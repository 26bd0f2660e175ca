// Identity verification of signers: the signer's captures (routes/identity-capture.ts) and the
// account's reviews (routes/identity.ts).
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, checkedByUseCase, examples } from './common.js';

export const EVIDENCE_KIND = StringEnum(['front', 'back', 'selfie'], {
  description: "front and back of the signer's identity document, and a selfie",
});

export const IdentityState = Type.Object({
  required: Type.Boolean({ description: 'whether this signer must verify their identity before signing' }),
  status: Nullable(StringEnum(['verification_pending', 'verified', 'verification_failed'])),
  captured: Type.Array(EVIDENCE_KIND, { description: 'images sent and not submitted yet (they go to review with submit)' }),
  submitted: Type.Boolean({ description: 'submitted for review (or decided)' }),
  provider: Nullable(
    Type.String({ description: "the operator's verification provider the signer may use instead (/identity/provider); null: none" }),
  ),
  reason: Nullable(Type.String({ description: 'after a rejection, its reason' })),
  retry: Type.Boolean({ description: 'after a rejection, whether the account allows another attempt (images sent again, then submit)' }),
});
export type IdentityState = Static<typeof IdentityState>;
examples(IdentityState, {
  required: true,
  status: 'verification_pending',
  captured: [],
  submitted: true,
  provider: null,
  reason: null,
  retry: false,
});

export const EvidenceParams = Type.Object({ token: Type.String(), kind: Type.String({ description: 'front, back or selfie' }) });
export const EvidenceBody = Type.Object({
  image: Type.String({ description: 'the image, JPEG, PNG or WebP, in Base64 (a data: URI prefix is accepted)' }),
});
examples(EvidenceBody, { image: 'iVBORw0KGgoAAAANSUhEUgAABLAAAAL4CAIAAAA...' });
export const SubmitBody = Type.Object({}, { description: 'empty: {}' });

const ReviewSigner = Type.Object({
  signer_id: Type.String(),
  name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  authority: Type.String(),
  data: Type.String(),
});

export const IdentityReview = Type.Object({
  id: Type.String(),
  status: StringEnum(['pending', 'approved', 'rejected']),
  document_ticket: Type.String(),
  document_name: Type.String(),
  signer: ReviewSigner,
  checks: Type.Record(Type.String(), Type.Unknown(), { description: 'what the service checked of each image (type, size, SHA-256)' }),
  reason: Nullable(Type.String()),
  created_at: DateTime(),
  decided_at: Nullable(DateTime()),
  evidence_deleted_at: Nullable(DateTime('when the images were deleted at the end of the retention period')),
});
export type IdentityReview = Static<typeof IdentityReview>;
const REVIEW_EXAMPLE: IdentityReview = {
  id: '5d6c0b7e-2f1a-4c3b-9d8e-7f6a5b4c3d2e',
  status: 'pending',
  document_ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14',
  document_name: 'Crédito.pdf',
  signer: {
    signer_id: '75dd5827-0af9-48ce-bc38-bab518ec8e07',
    name: 'Ana García',
    email: 'ana@example.com',
    authority: 'EMAIL_LINK',
    data: 'ana@example.com',
  },
  checks: {
    images: {
      front: { content_type: 'image/jpeg', width: 1600, height: 1010, size_bytes: 412330, sha256: '9b1f…' },
      back: { content_type: 'image/jpeg', width: 1600, height: 1010, size_bytes: 388112, sha256: '04ac…' },
      selfie: { content_type: 'image/jpeg', width: 960, height: 1280, size_bytes: 301442, sha256: 'c7d2…' },
    },
  },
  reason: null,
  created_at: '2026-11-23T09:02:11.000Z',
  decided_at: null,
  evidence_deleted_at: null,
};
examples(IdentityReview, { ...REVIEW_EXAMPLE, status: 'approved', decided_at: '2026-11-23T09:30:00.000Z' });

export const IdentityReviewList = Type.Object({ reviews: Type.Array(IdentityReview) });
export type IdentityReviewList = Static<typeof IdentityReviewList>;
examples(IdentityReviewList, { reviews: [REVIEW_EXAMPLE] });

export const IdentityReviewDetail = Type.Composite([
  IdentityReview,
  Type.Object({
    evidence: Type.Array(
      Type.Object({
        kind: EVIDENCE_KIND,
        content_type: Type.String(),
        width: Type.Integer(),
        height: Type.Integer(),
        sha256: Type.String(),
        image: Type.String({ description: 'Base64 of the image' }),
      }),
    ),
  }),
]);
export type IdentityReviewDetail = Static<typeof IdentityReviewDetail>;
examples(IdentityReviewDetail, {
  ...REVIEW_EXAMPLE,
  evidence: [
    { kind: 'front', content_type: 'image/jpeg', width: 1600, height: 1010, sha256: '9b1f…', image: '/9j/4AAQSkZJRgABAQAAAQABAAD…' },
  ],
});

export const ReviewListQuery = Type.Object({
  status: Type.Optional(Type.String({ description: 'pending, approved or rejected' })),
  limit: Type.Optional(Type.String({ description: '1..200, default 50' })),
  before: Type.Optional(Type.String({ description: 'epoch ms: reviews created before (the last created_at of the previous page)' })),
});
export const ReviewParams = Type.Object({ id: Type.String() });
export const ReviewDecision = Type.Object({
  decision: StringEnum(['approve', 'reject']),
  reason: Type.Optional(Type.String({ description: 'required when rejecting; at most 500 characters' })),
});
examples(ReviewDecision, { decision: 'reject', reason: 'The selfie does not match the photo of the document' });

export const ProviderSession = Type.Object({ url: Type.String({ description: "the provider's page: send the signer there" }) });
examples(ProviderSession, { url: 'https://verify.example-provider.com/s/8f2c1e' });

export const ProviderResult = Type.Object(
  {
    reference: Type.String({ description: 'the reference the session was started with' }),
    outcome: StringEnum(['approved', 'rejected']),
    reason: Type.Optional(Type.String()),
  },
  // Read only after the signature over the raw body is checked.
  checkedByUseCase,
);
examples(ProviderResult, { reference: '5d6c0b7e-2f1a-4c3b-9d8e-7f6a5b4c3d2e', outcome: 'approved' });
export const ProviderResultAnswer = Type.Object({ status: Type.Literal('ok'), applied: Type.Integer() });
examples(ProviderResultAnswer, { status: 'ok', applied: 1 });
