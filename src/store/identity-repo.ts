// SQL of identity verification (migration 0020): a signer's captured evidence (sealed images), the
// reviews decided on it, and the signer's identity_status.
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';

type Q = Kysely<Database> | Transaction<Database>;

export type EvidenceKind = 'front' | 'back' | 'selfie';
export type IdentityStatus = 'verification_pending' | 'verified' | 'verification_failed';

export interface EvidenceFacts {
  kind: EvidenceKind;
  content_type: string;
  width: number;
  height: number;
  size_bytes: number;
  sha256: string;
  created_at: Date;
  /** What was measured of the image at capture (identity-imaging/image-quality.ts); null before migration 0027. */
  quality: Record<string, unknown> | null;
}

/** The signer's draft image of a kind, replaced when sent again. */
export async function upsertEvidence(trx: Q, e: EvidenceFacts & { signerRowId: string; sealed: Buffer }): Promise<void> {
  await sql`insert into identity_evidence (signer_row_id, kind, content_type, width, height, size_bytes, sha256, sealed, created_at, quality)
    values (${e.signerRowId}, ${e.kind}, ${e.content_type}, ${e.width}, ${e.height}, ${e.size_bytes}, ${e.sha256}, ${e.sealed}, ${e.created_at},
      ${e.quality === null ? null : JSON.stringify(e.quality)}::jsonb)
    on conflict (signer_row_id, kind) where review_id is null do update set content_type = excluded.content_type,
      width = excluded.width, height = excluded.height, size_bytes = excluded.size_bytes, sha256 = excluded.sha256,
      sealed = excluded.sealed, created_at = excluded.created_at, quality = excluded.quality`.execute(trx);
}

/** The signer's draft images (sent, not submitted yet), without the images. */
export async function draftEvidenceOf(q: Q, signerRowId: string): Promise<EvidenceFacts[]> {
  const r = await sql<EvidenceFacts>`select kind, content_type, width, height, size_bytes, sha256, created_at, quality
    from identity_evidence where signer_row_id = ${signerRowId} and review_id is null order by kind`.execute(q);
  return r.rows;
}

/** Gives the signer's drafts to the review just created. */
export async function attachDraftEvidence(trx: Q, signerRowId: string, reviewId: string): Promise<void> {
  await sql`update identity_evidence set review_id = ${reviewId}::uuid where signer_row_id = ${signerRowId} and review_id is null`.execute(
    trx,
  );
}

/** The sealed images of a review. */
export async function sealedEvidenceOf(q: Q, reviewId: string): Promise<(EvidenceFacts & { sealed: Buffer })[]> {
  const r = await sql<EvidenceFacts & { sealed: Buffer }>`select kind, content_type, width, height, size_bytes, sha256, created_at,
    quality, sealed from identity_evidence where review_id = ${reviewId}::uuid order by kind`.execute(q);
  return r.rows;
}

/** How many times the signer's identity was rejected. */
export async function rejectionsOf(q: Q, signerRowId: string): Promise<number> {
  const r = await sql<{
    n: number;
  }>`select count(*)::int as n from identity_reviews where signer_row_id = ${signerRowId} and status = 'rejected'`.execute(q);
  return r.rows[0].n;
}

export async function setIdentityStatus(trx: Q, signerRowIds: string | string[], status: IdentityStatus): Promise<void> {
  const ids = typeof signerRowIds === 'string' ? [signerRowIds] : signerRowIds;
  await sql`update signers set identity_status = ${status} where id = any(${ids}::bigint[])`.execute(trx);
}

/**
 * Whose verification a signer row's is: its own, or, for a row of a document set, the set signer's
 * (one capture and one review for all their documents of the set), kept on their first row asked
 * to verify in document order, so every attempt of that person finds the same drafts and reviews.
 */
export interface IdentitySubject {
  /** The row the drafts, the reviews and the retries are counted on. */
  rowId: string;
  documentId: string;
  setSignerId: string | null;
}

export async function identitySubjectOf(q: Q, signerRowId: string): Promise<IdentitySubject> {
  const r =
    await sql<IdentitySubject>`select coalesce(a.id, s.id)::text as "rowId", coalesce(a.document_id, s.document_id)::text as "documentId",
      s.set_signer_id::text as "setSignerId"
    from signers s
    left join lateral (select x.id, x.document_id from signers x where s.set_signer_id is not null and x.set_signer_id = s.set_signer_id
      and x.identity_status is not null order by x.document_id, x.id limit 1) a on true
    where s.id = ${signerRowId}`.execute(q);
  return r.rows[0];
}

/** A document signer row a verification decides: its document and the signer as events name them. */
export interface CoveredRow {
  id: string;
  document_id: string;
  document_ticket: string;
  signer_id: string;
  name: string | null;
  email: string | null;
  authority: string;
  data: string;
}

/**
 * The rows a verification decides: the subject's own, or every row of the set signer asked to
 * verify (each of their documents of the set), in document order.
 */
export async function coveredRowsOf(q: Q, subject: { rowId: string; setSignerId: string | null }): Promise<CoveredRow[]> {
  const r = await sql<CoveredRow>`select s.id::text as id, s.document_id::text as document_id, d.ticket as document_ticket, s.signer_id,
      s.name, s.email, s.authority, s.data
    from signers s join documents d on d.id = s.document_id
    where ${subject.setSignerId === null ? sql`s.id = ${subject.rowId}` : sql`s.set_signer_id = ${subject.setSignerId} and s.identity_status is not null`}
    order by s.document_id, s.id`.execute(q);
  return r.rows;
}

/**
 * On closing a set: a person asked to verify on any of their documents of the set verifies before
 * signing any of them (they sign all in one act), so each of their rows waits for the verification.
 */
export async function spreadSetIdentityRequirement(trx: Q, setSignerId: string): Promise<void> {
  await sql`update signers set identity_status = 'verification_pending'
    where set_signer_id = ${setSignerId} and identity_status is null
      and exists (select 1 from signers x where x.set_signer_id = ${setSignerId} and x.identity_status is not null)`.execute(trx);
}

export interface ReviewRow {
  id: string;
  status: 'pending' | 'approved' | 'rejected';
  checks: Record<string, unknown>;
  reason: string | null;
  created_at: Date;
  decided_at: Date | null;
  evidence_deleted_at: Date | null;
  document_id: string;
  document_ticket: string;
  document_name: string;
  signer_row_id: string;
  signer_id: string;
  signer_name: string | null;
  signer_email: string | null;
  authority: string;
  data: string;
  identity_status: IdentityStatus | null;
  account_id: string;
  /** 'manual' (a person of the account) or the external provider's name. */
  provider: string;
  /** The built-in checks' results (domain/identity/run-checks.ts); null until they ran. */
  automatic_checks: Record<string, unknown> | null;
  /** A set signer's review: it decides their rows on every document of the set asked to verify. */
  set_signer_id: string | null;
  set_uuid: string | null;
  set_name: string | null;
  /** The documents the review decides (the set's; for a review outside a set, its document). */
  covered: { document_ticket: string; document_name: string }[];
}

// A set signer's review is kept on their first document's row, which may not carry the name the
// person was given on another document of the set: the set signer's (the first one given) then.
const REVIEW = sql`r.id::text as id, r.status, r.checks, r.reason, r.created_at, r.decided_at, r.evidence_deleted_at,
  r.account_id::text as account_id, r.provider, r.automatic_checks,
  d.id::text as document_id, d.ticket as document_ticket, d.name as document_name, s.id::text as signer_row_id, s.signer_id,
  coalesce(s.name, ss.name) as signer_name, coalesce(s.email, ss.email) as signer_email, s.authority, s.data, s.identity_status,
  r.set_signer_id::text as set_signer_id, ds.uuid as set_uuid, ds.name as set_name,
  case when r.set_signer_id is null then json_build_array(json_build_object('document_ticket', d.ticket, 'document_name', d.name))
    else coalesce((select json_agg(json_build_object('document_ticket', cd.ticket, 'document_name', cd.name) order by cd.id)
      from signers c join documents cd on cd.id = c.document_id
      where c.set_signer_id = r.set_signer_id and c.identity_status is not null), '[]'::json) end as covered`;
const REVIEW_FROM = sql`identity_reviews r join documents d on d.id = r.document_id join signers s on s.id = r.signer_row_id
  left join set_signers ss on ss.id = r.set_signer_id left join document_sets ds on ds.id = ss.set_id`;

export async function insertReview(
  trx: Q,
  r: {
    id?: string;
    accountId: string;
    documentId: string;
    signerRowId: string;
    /** A set signer's review (identitySubjectOf). */
    setSignerId?: string | null;
    checks: Record<string, unknown>;
    at: Date;
    provider?: { name: string; session: string };
  },
): Promise<string> {
  const { rows } = await sql<{ id: string }>`insert into identity_reviews (id, account_id, document_id, signer_row_id, checks, created_at,
      provider, provider_session, set_signer_id)
    values (coalesce(${r.id ?? null}::uuid, gen_random_uuid()), ${r.accountId}, ${r.documentId}, ${r.signerRowId},
      ${JSON.stringify(r.checks)}::jsonb, ${r.at}, ${r.provider?.name ?? 'manual'}, ${r.provider?.session ?? null},
      ${r.setSignerId ?? null}::bigint)
    returning id::text as id`.execute(trx);
  return rows[0].id;
}

/** A review an external provider decides, by the reference the service gave it (its id), locked. */
export async function findProviderReview(q: Q, id: string): Promise<ReviewRow | undefined> {
  const r = await sql<ReviewRow>`select ${REVIEW} from ${REVIEW_FROM} where r.id = ${id}::uuid and r.provider <> 'manual'
    for update of r`.execute(q);
  return r.rows[0];
}

export async function pendingReviewOf(q: Q, signerRowId: string): Promise<string | undefined> {
  const r = await sql<{
    id: string;
  }>`select id::text as id from identity_reviews where signer_row_id = ${signerRowId} and status = 'pending'`.execute(q);
  return r.rows[0]?.id;
}

export async function listReviews(q: Q, o: { accountId: string; status?: string; limit: number; before?: Date }): Promise<ReviewRow[]> {
  const r = await sql<ReviewRow>`select ${REVIEW} from ${REVIEW_FROM} where r.account_id = ${o.accountId}
    ${o.status ? sql`and r.status = ${o.status}` : sql``}
    ${o.before ? sql`and r.created_at < ${o.before}` : sql``}
    order by r.created_at desc, r.id desc limit ${o.limit}`.execute(q);
  return r.rows;
}

/** One review of the account (locked with `lock`, inside a transaction); undefined for another account's. */
export async function findReview(q: Q, accountId: string, id: string, lock = false): Promise<ReviewRow | undefined> {
  const r = await sql<ReviewRow>`select ${REVIEW} from ${REVIEW_FROM} where r.account_id = ${accountId} and r.id = ${id}::uuid
    ${lock ? sql`for update of r` : sql``}`.execute(q);
  return r.rows[0];
}

export async function decideReview(
  trx: Q,
  id: string,
  d: { status: 'approved' | 'rejected'; reason: string | null; at: Date; provider: string },
): Promise<void> {
  await sql`update identity_reviews set status = ${d.status}, reason = ${d.reason}, decided_at = ${d.at}, provider = ${d.provider}
    where id = ${id}::uuid`.execute(trx);
}

/** The signer's decided review (approved), for the report: when and how the identity was proven. */
export async function approvedReviewOf(q: Q, signerRowId: string): Promise<{ id: string; decided_at: Date } | undefined> {
  const r = await sql<{ id: string; decided_at: Date }>`select id::text as id, decided_at from identity_reviews
    where signer_row_id = ${signerRowId} and status = 'approved' order by decided_at desc limit 1`.execute(q);
  return r.rows[0];
}

/**
 * Deletes the images of reviews decided before `before` (the retention period): the review stays,
 * with evidence_deleted_at. Returns how many reviews lost their images.
 */
export async function deleteDecidedEvidence(q: Q, before: Date, at: Date): Promise<number> {
  const r = await sql<{ id: string }>`with due as (
      update identity_reviews set evidence_deleted_at = ${at}
      where status <> 'pending' and decided_at < ${before} and evidence_deleted_at is null
      returning signer_row_id, id)
    , gone as (delete from identity_evidence e using due where e.review_id = due.id)
    select id::text as id from due`.execute(q);
  return r.rows.length;
}

/**
 * Images a signer sent but never submitted for review (drafts), captured before `before`: deleted.
 * A draft is replaced when sent again, which renews its time.
 */
export async function deleteStaleDrafts(q: Q, before: Date): Promise<number> {
  const r = await sql`delete from identity_evidence where review_id is null and created_at < ${before}`.execute(q);
  return Number(r.numAffectedRows ?? 0n);
}

/** The account's number of further attempts after a rejection (accounts.identity_retries). */
export async function identityRetriesOf(q: Q, accountId: string): Promise<number> {
  const r = await sql<{ n: number }>`select identity_retries as n from accounts where id = ${accountId}`.execute(q);
  return r.rows[0]?.n ?? 0;
}

/** The reason of the signer's last rejected review, if any. */
export async function lastRejectionReasonOf(q: Q, signerRowId: string): Promise<string | null> {
  const r = await sql<{
    reason: string | null;
  }>`select reason from identity_reviews where signer_row_id = ${signerRowId} and status = 'rejected'
    order by decided_at desc limit 1`.execute(q);
  return r.rows[0]?.reason ?? null;
}

/** A review by its id alone (for the checks job), locked with `lock` inside a transaction. */
export async function findReviewById(q: Q, id: string, lock = false): Promise<ReviewRow | undefined> {
  const r =
    await sql<ReviewRow>`select ${REVIEW} from ${REVIEW_FROM} where r.id = ${id}::uuid ${lock ? sql`for update of r` : sql``}`.execute(q);
  return r.rows[0];
}

export async function saveAutomaticChecks(q: Q, id: string, results: Record<string, unknown>): Promise<void> {
  await sql`update identity_reviews set automatic_checks = ${JSON.stringify(results)}::jsonb where id = ${id}::uuid`.execute(q);
}

/** Who decides the account's reviews whose checks all passed (accounts.identity_decision). */
export async function identityDecisionOf(q: Q, accountId: string): Promise<'manual' | 'automatic'> {
  const r = await sql<{ d: 'manual' | 'automatic' }>`select identity_decision as d from accounts where id = ${accountId}`.execute(q);
  return r.rows[0]?.d ?? 'manual';
}
