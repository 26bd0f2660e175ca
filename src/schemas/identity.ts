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
  documents: Type.Integer({
    minimum: 0,
    description:
      "how many documents this verification is for: 1 for a document of its own; a set signer's documents of the set that ask for it (one verification for all, whichever of their links is used); 0 when not required",
  }),
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
  documents: 1,
});

export const EvidenceParams = Type.Object({ token: Type.String(), kind: Type.String({ description: 'front, back or selfie' }) });
export const SetEvidenceParams = Type.Object({
  token: Type.String({ description: 'the token of a set link' }),
  kind: Type.String({ description: 'front, back or selfie' }),
});
export const EvidenceBody = Type.Object({
  image: Type.String({ minLength: 1, description: 'the image, JPEG or PNG, in Base64 (a data: URI prefix is accepted)' }),
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

const Outcome = StringEnum(['pass', 'fail', 'not_checked']);

const FoundFace = Type.Object({
  box: Type.Object(
    { x: Type.Integer(), y: Type.Integer(), width: Type.Integer(), height: Type.Integer() },
    { description: "in the image's pixels, upright" },
  ),
  score: Type.Number({ description: 'detection score, 0.5 to 1' }),
});

export const AutomaticChecks = Type.Object(
  {
    status: StringEnum(['passed', 'failed'], {
      description: 'passed: every check passed, the face included; failed: at least one did not',
    }),
    ran_at: DateTime(),
    checks: Type.Object({
      image_quality: Type.Object({
        result: Outcome,
        images: Type.Record(Type.String(), Type.Unknown(), {
          description:
            'per image: width, height, sharpness (variance of the Laplacian at 640 px; at least 150), glare (share of the image in clipped bright blobs; at most 0.003, documents only), brightness, sharp, glare_free, result',
        }),
      }),
      mrz: Type.Object(
        {
          result: Outcome,
          side: Type.Optional(StringEnum(['front', 'back'])),
          format: Type.Optional(Type.String({ description: 'TD1 (card), TD2 or TD3 (passport)' })),
          check_digits: Type.Optional(StringEnum(['valid', 'invalid'])),
          invalid_fields: Type.Optional(Type.Array(Type.String())),
          corrected_characters: Type.Optional(
            Type.Integer({ description: 'characters the reading corrected (O read for 0 and the like)' }),
          ),
          document_code: Type.Optional(Nullable(Type.String())),
          issuing_state: Type.Optional(Nullable(Type.String())),
          problem: Type.Optional(Type.String()),
        },
        {
          description:
            'the machine-readable zone read by OCR on the back (card) or front (passport); pass: read and every check digit holds',
        },
      ),
      name: Type.Object(
        {
          result: Outcome,
          document_name: Type.Optional(Type.String()),
          signer_name: Type.Optional(Nullable(Type.String())),
          missing: Type.Optional(Type.Array(Type.String(), { description: "words of the signer's name not in the document's" })),
        },
        { description: "the zone's name against the signer's (accents, case and word order ignored); not_checked without a valid zone" },
      ),
      expiry: Type.Object(
        { result: Outcome, expires_on: Type.Optional(Type.String({ description: 'YYYY-MM-DD' })) },
        { description: "the zone's expiry date against the service clock; not_checked without a valid zone" },
      ),
      face: Type.Object(
        {
          result: Outcome,
          distance: Type.Optional(
            Type.Number({ description: "Euclidean distance of the two largest faces' descriptors; absent when a side has no face" }),
          ),
          threshold: Type.Optional(Type.Number({ description: 'pass when the distance is under it' })),
          front_faces: Type.Optional(Type.Array(FoundFace, { description: "faces found on the document's front, largest first" })),
          selfie_faces: Type.Optional(Type.Array(FoundFace, { description: 'faces found on the selfie, largest first' })),
          problem: Type.Optional(Type.String()),
          reason: Type.Optional(Type.String({ description: 'reviews checked before faces were compared: why not_checked' })),
        },
        {
          description:
            "the largest face on the document's front (its portrait) against the largest on the selfie; fail with a problem when a side has no face. The descriptors are never stored",
        },
      ),
    }),
  },
  { description: "the built-in checks' results; null until they ran (seconds after the submission)" },
);

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
  decided_by: StringEnum(['manual', 'automatic_checks', 'provider'], {
    description: 'who decides (or decided): a person of the account, the built-in checks, or the external provider',
  }),
  automatic_checks: Nullable(AutomaticChecks),
  document_set: Nullable(
    Type.Object(
      {
        uuid: Type.String(),
        name: Type.String(),
        documents: Type.Array(Type.Object({ document_ticket: Type.String(), document_name: Type.String() }), {
          description: "every document of the set where the decision applies: this signer's documents of the set",
        }),
      },
      {
        description:
          'a signer of a document set verifies once for all their documents of the set: the set, and the documents the decision applies to; null outside a set (document_ticket is then the only one)',
      },
    ),
  ),
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
  decided_by: 'manual',
  automatic_checks: {
    status: 'passed',
    ran_at: '2026-11-23T09:02:14.000Z',
    checks: {
      image_quality: {
        result: 'pass',
        images: {
          front: {
            width: 1600,
            height: 1010,
            sharpness: 1163.2,
            glare: 0,
            brightness: 179.5,
            sharp: true,
            glare_free: true,
            result: 'pass',
          },
          back: {
            width: 1600,
            height: 1010,
            sharpness: 2242.9,
            glare: 0,
            brightness: 171.3,
            sharp: true,
            glare_free: true,
            result: 'pass',
          },
          selfie: {
            width: 960,
            height: 1280,
            sharpness: 412.6,
            glare: 0,
            brightness: 141.0,
            sharp: true,
            glare_free: true,
            result: 'pass',
          },
        },
      },
      mrz: {
        result: 'pass',
        side: 'back',
        format: 'TD1',
        check_digits: 'valid',
        invalid_fields: [],
        corrected_characters: 0,
        document_code: 'I',
        issuing_state: 'MEX',
      },
      name: { result: 'pass', document_name: 'GARCIA LOPEZ ANA MARIA', signer_name: 'Ana García', missing: [] },
      expiry: { result: 'pass', expires_on: '2031-12-31' },
      face: {
        result: 'pass',
        distance: 0.382,
        threshold: 0.5,
        front_faces: [{ box: { x: 178, y: 262, width: 196, height: 247 }, score: 0.981 }],
        selfie_faces: [{ box: { x: 291, y: 402, width: 392, height: 478 }, score: 0.996 }],
      },
    },
  },
  document_set: null,
};
examples(IdentityReview, { ...REVIEW_EXAMPLE, status: 'approved', decided_at: '2026-11-23T09:30:00.000Z' });
examples(AutomaticChecks, REVIEW_EXAMPLE.automatic_checks!);

export const IdentityReviewList = Type.Object({ reviews: Type.Array(IdentityReview) });
export type IdentityReviewList = Static<typeof IdentityReviewList>;
examples(IdentityReviewList, {
  reviews: [
    {
      ...REVIEW_EXAMPLE,
      document_set: {
        uuid: '664a6790-db83-4db0-bc94-2e313049a434',
        name: 'Onboarding',
        documents: [
          { document_ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14', document_name: 'Crédito.pdf' },
          { document_ticket: '0bd0b4ad-d0f7-48c5-b4a8-27ba5e56fda7', document_name: 'Pagaré.pdf' },
        ],
      },
    },
  ],
});

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

export const ProviderResult = Type.Object({
  reference: Type.String({ pattern: '^[0-9a-fA-F-]{36}$', description: 'the reference the session was started with' }),
  outcome: StringEnum(['approved', 'rejected']),
  reason: Type.Optional(Nullable(Type.String({ description: 'why, when rejected; the first 500 characters are kept' }))),
});
examples(ProviderResult, { reference: '5d6c0b7e-2f1a-4c3b-9d8e-7f6a5b4c3d2e', outcome: 'approved' });
/**
 * The callback's body as its route declares it. Skipped by the route's validator, because it is read
 * only after the signature over the raw bytes is checked; receiveProviderResult then checks it
 * against ProviderResult.
 */
export const SignedProviderResult = Type.Unsafe<Static<typeof ProviderResult>>({ ...ProviderResult, ...checkedByUseCase });
export const ProviderResultAnswer = Type.Object({ status: Type.Literal('ok'), applied: Type.Integer() });
examples(ProviderResultAnswer, { status: 'ok', applied: 1 });
