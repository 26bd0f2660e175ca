// SQL of identity verification (migration 0020): a signer's captured evidence (sealed images), the
// reviews decided on it, and the signer's identity_status.
import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database, DocumentsTable, IdentityEvidenceTable, SignersTable } from './schema.js';

type Q = Kysely<Database> | Transaction<Database>;

export type EvidenceKind = Selectable<IdentityEvidenceTable>['kind'];
export type IdentityStatus = NonNullable<Selectable<SignersTable>['identity_status']>;

const EVIDENCE_COLUMNS = ['kind', 'content_type', 'width', 'height', 'size_bytes', 'sha256', 'created_at', 'quality'] as const;

/** An image's facts; quality: what was measured of it at capture (identity-imaging/image-quality.ts), null before migration 0027. */
export type EvidenceFacts = Omit<Pick<Selectable<IdentityEvidenceTable>, (typeof EVIDENCE_COLUMNS)[number]>, 'quality'> & {
  quality: Record<string, unknown> | null;
};

/** The signer's draft image of a kind, replaced when sent again. */
export async function upsertEvidence(trx: Q, e: EvidenceFacts & { signerRowId: string; sealed: Buffer }): Promise<void> {
  await trx
    .insertInto('identity_evidence')
    .values({
      signer_row_id: e.signerRowId,
      kind: e.kind,
      content_type: e.content_type,
      width: e.width,
      height: e.height,
      size_bytes: e.size_bytes,
      sha256: e.sha256,
      sealed: e.sealed,
      created_at: e.created_at,
      quality: e.quality === null ? null : JSON.stringify(e.quality),
    })
    .onConflict((oc) =>
      oc
        .columns(['signer_row_id', 'kind'])
        .where('review_id', 'is', null)
        .doUpdateSet((eb) => ({
          content_type: eb.ref('excluded.content_type'),
          width: eb.ref('excluded.width'),
          height: eb.ref('excluded.height'),
          size_bytes: eb.ref('excluded.size_bytes'),
          sha256: eb.ref('excluded.sha256'),
          sealed: eb.ref('excluded.sealed'),
          created_at: eb.ref('excluded.created_at'),
          quality: eb.ref('excluded.quality'),
        })),
    )
    .execute();
}

/** The signer's draft images (sent, not submitted yet), without the images. */
export async function draftEvidenceOf(q: Q, signerRowId: string): Promise<EvidenceFacts[]> {
  return q
    .selectFrom('identity_evidence')
    .select(EVIDENCE_COLUMNS)
    .where('signer_row_id', '=', signerRowId)
    .where('review_id', 'is', null)
    .orderBy('kind')
    .$narrowType<{ quality: EvidenceFacts['quality'] }>()
    .execute();
}

/** Gives the signer's drafts to the review just created. */
export async function attachDraftEvidence(trx: Q, signerRowId: string, reviewId: string): Promise<void> {
  await trx
    .updateTable('identity_evidence')
    .set({ review_id: reviewId })
    .where('signer_row_id', '=', signerRowId)
    .where('review_id', 'is', null)
    .execute();
}

/** The sealed images of a review. */
export async function sealedEvidenceOf(q: Q, reviewId: string): Promise<(EvidenceFacts & { sealed: Buffer })[]> {
  return q
    .selectFrom('identity_evidence')
    .select([...EVIDENCE_COLUMNS, 'sealed'])
    .where('review_id', '=', reviewId)
    .orderBy('kind')
    .$narrowType<{ quality: EvidenceFacts['quality'] }>()
    .execute();
}

/** How many times the signer's identity was rejected. */
export async function rejectionsOf(q: Q, signerRowId: string): Promise<number> {
  const r = await q
    .selectFrom('identity_reviews')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('signer_row_id', '=', signerRowId)
    .where('status', '=', 'rejected')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function setIdentityStatus(trx: Q, signerRowIds: string | string[], status: IdentityStatus): Promise<void> {
  const ids = typeof signerRowIds === 'string' ? [signerRowIds] : signerRowIds;
  if (ids.length === 0) {
    return; // `in ()` is not SQL
  }
  await trx.updateTable('signers').set({ identity_status: status }).where('id', 'in', ids).execute();
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
  // A LATERAL join with its own ORDER BY and LIMIT: plainer in SQL than in the builder.
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
export type CoveredRow = Pick<Selectable<SignersTable>, 'id' | 'document_id' | 'signer_id' | 'name' | 'email' | 'authority' | 'data'> & {
  document_ticket: Selectable<DocumentsTable>['ticket'];
};

/**
 * The rows a verification decides: the subject's own, or every row of the set signer asked to
 * verify (each of their documents of the set), in document order.
 */
export async function coveredRowsOf(q: Q, subject: { rowId: string; setSignerId: string | null }): Promise<CoveredRow[]> {
  const setSignerId = subject.setSignerId;
  return q
    .selectFrom('signers as s')
    .innerJoin('documents as d', 'd.id', 's.document_id')
    .select(['s.id', 's.document_id', 'd.ticket as document_ticket', 's.signer_id', 's.name', 's.email', 's.authority', 's.data'])
    .$if(setSignerId === null, (qb) => qb.where('s.id', '=', subject.rowId))
    .$if(setSignerId !== null, (qb) => qb.where('s.set_signer_id', '=', setSignerId!).where('s.identity_status', 'is not', null))
    .orderBy('s.document_id')
    .orderBy('s.id')
    .execute();
}

/**
 * On closing a set: a person asked to verify on any of their documents of the set verifies before
 * signing any of them (they sign all in one act), so each of their rows waits for the verification.
 */
export async function spreadSetIdentityRequirement(trx: Q, setSignerId: string): Promise<void> {
  await trx
    .updateTable('signers')
    .set({ identity_status: 'verification_pending' })
    .where('set_signer_id', '=', setSignerId)
    .where('identity_status', 'is', null)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('signers as x').select('x.id').where('x.set_signer_id', '=', setSignerId).where('x.identity_status', 'is not', null),
      ),
    )
    .execute();
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

// The review's select, with json_agg and json_build_object subqueries: kept in SQL, where they read plainly.
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
  const row = await trx
    .insertInto('identity_reviews')
    .values({
      // Without an id given, the column's default (gen_random_uuid()) makes one.
      ...(r.id !== undefined ? { id: r.id } : {}),
      account_id: r.accountId,
      document_id: r.documentId,
      signer_row_id: r.signerRowId,
      checks: JSON.stringify(r.checks),
      created_at: r.at,
      provider: r.provider?.name ?? 'manual',
      provider_session: r.provider?.session ?? null,
      set_signer_id: r.setSignerId ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A review an external provider decides, by the reference the service gave it (its id), locked. */
export async function findProviderReview(q: Q, id: string): Promise<ReviewRow | undefined> {
  const r = await sql<ReviewRow>`select ${REVIEW} from ${REVIEW_FROM} where r.id = ${id}::uuid and r.provider <> 'manual'
    for update of r`.execute(q);
  return r.rows[0];
}

export async function pendingReviewOf(q: Q, signerRowId: string): Promise<string | undefined> {
  const r = await q
    .selectFrom('identity_reviews')
    .select('id')
    .where('signer_row_id', '=', signerRowId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return r?.id;
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
  await trx
    .updateTable('identity_reviews')
    .set({ status: d.status, reason: d.reason, decided_at: d.at, provider: d.provider })
    .where('id', '=', id)
    .execute();
}

/** The signer's decided review (approved), for the report: when and how the identity was proven. */
export async function approvedReviewOf(q: Q, signerRowId: string): Promise<{ id: string; decided_at: Date } | undefined> {
  return q
    .selectFrom('identity_reviews')
    .select(['id', 'decided_at'])
    .where('signer_row_id', '=', signerRowId)
    .where('status', '=', 'approved')
    .orderBy('decided_at', 'desc')
    .limit(1)
    .$narrowType<{ decided_at: Date }>()
    .executeTakeFirst();
}

/**
 * Deletes the images of reviews decided before `before` (the retention period): the review stays,
 * with evidence_deleted_at. Returns how many reviews lost their images.
 */
export async function deleteDecidedEvidence(q: Q, before: Date, at: Date): Promise<number> {
  // Two data-modifying WITHs in one statement: the reviews marked and their images deleted together.
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
  const r = await q.deleteFrom('identity_evidence').where('review_id', 'is', null).where('created_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** The account's number of further attempts after a rejection (accounts.identity_retries). */
export async function identityRetriesOf(q: Q, accountId: string): Promise<number> {
  const r = await q.selectFrom('accounts').select('identity_retries').where('id', '=', accountId).executeTakeFirst();
  return r?.identity_retries ?? 0;
}

/** The reason of the signer's last rejected review, if any. */
export async function lastRejectionReasonOf(q: Q, signerRowId: string): Promise<string | null> {
  const r = await q
    .selectFrom('identity_reviews')
    .select('reason')
    .where('signer_row_id', '=', signerRowId)
    .where('status', '=', 'rejected')
    .orderBy('decided_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r?.reason ?? null;
}

/** A review by its id alone (for the checks job), locked with `lock` inside a transaction. */
export async function findReviewById(q: Q, id: string, lock = false): Promise<ReviewRow | undefined> {
  const r =
    await sql<ReviewRow>`select ${REVIEW} from ${REVIEW_FROM} where r.id = ${id}::uuid ${lock ? sql`for update of r` : sql``}`.execute(q);
  return r.rows[0];
}

export async function saveAutomaticChecks(q: Q, id: string, results: Record<string, unknown>): Promise<void> {
  await q
    .updateTable('identity_reviews')
    .set({ automatic_checks: JSON.stringify(results) })
    .where('id', '=', id)
    .execute();
}

/** Who decides the account's reviews whose checks all passed (accounts.identity_decision). */
export async function identityDecisionOf(q: Q, accountId: string): Promise<'manual' | 'automatic'> {
  const r = await q.selectFrom('accounts').select('identity_decision').where('id', '=', accountId).executeTakeFirst();
  return r?.identity_decision ?? 'manual';
}
