-- Identity verification of signers before they sign (decisions.md "Channels and identity
-- verification"). A signer created with requireIdentityVerification starts verification_pending;
-- a decision on their review makes them verified (may sign) or verification_failed (may not).
-- null: no verification asked.
alter table signers add column identity_status text
  check (identity_status in ('verification_pending', 'verified', 'verification_failed'));

-- One review per submission: what the reviewer decides on. `checks` holds the built-in checks'
-- results; `evidence_deleted_at` says when the images were deleted (the review itself stays).
create table identity_reviews (
  id                  uuid primary key default gen_random_uuid(),
  account_id          bigint not null references accounts(id),
  document_id         bigint not null references documents(id) on delete cascade,
  signer_row_id       bigint not null references signers(id) on delete cascade,
  status              text not null default 'pending' check (status in ('pending', 'approved', 'rejected')),
  checks              jsonb not null,
  reason              text,
  created_at          timestamptz not null,
  decided_at          timestamptz,
  evidence_deleted_at timestamptz
);
create index identity_reviews_account on identity_reviews (account_id, created_at desc);
create unique index identity_reviews_one_pending on identity_reviews (signer_row_id) where status = 'pending';

-- What the signer captured: the identity document's front and back and a selfie. Personal data:
-- the image is sealed under the master key (AES-256-GCM, pki/secret-box.ts), never stored in the
-- clear, and deleted once kept for SELLO_IDENTITY_EVIDENCE_DAYS after the decision. Until it is
-- submitted an image is the signer's draft (review_id null, one per kind, replaced when sent
-- again); submitting gives the drafts to the new review, so a later attempt starts afresh.
create table identity_evidence (
  id            bigserial primary key,
  signer_row_id bigint not null references signers(id) on delete cascade,
  review_id     uuid references identity_reviews(id) on delete cascade,
  kind          text not null check (kind in ('front', 'back', 'selfie')),
  content_type  text not null,
  width         integer not null,
  height        integer not null,
  size_bytes    integer not null,
  sha256        text not null,
  sealed        bytea not null,
  created_at    timestamptz not null
);
create unique index identity_evidence_draft on identity_evidence (signer_row_id, kind) where review_id is null;
create index identity_evidence_review on identity_evidence (review_id);

