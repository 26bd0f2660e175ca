// GET /api/identity/reviews, GET /api/identity/reviews/{id}, POST /api/identity/reviews/{id}: the
// account's people look at a signer's evidence and decide. Approving makes the signer `verified`
// (they may sign) and emits identity_verification_passed; rejecting makes them
// `verification_failed` (they may not) and emits identity_verification_failed with the reason.
// Another account's review is as unknown as one never made. A set signer's review (one per person
// and set) shows the set and the documents it covers, and its decision applies to each of them:
// each signer row changes, and each document gets its history entry and its event.
import { AUTOMATIC_PROVIDER } from './automatic-provider.js';
import { AppError, invalid } from '../errors.js';
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import type { Database } from '../../store/schema.js';
import { emitEvent } from '../events/emit-event.js';
import { appendHistory } from '../history/append-history.js';
import { lockDocuments } from '../../store/set-flow-repo.js';
import type { Static } from '@sinclair/typebox';
import type { IdentityReview, IdentityReviewDetail, IdentityReviewList, ReviewDecision, ReviewListQuery } from '../../schemas/identity.js';
import {
  type ReviewRow,
  coveredRowsOf,
  decideReview,
  findReview,
  listReviews,
  sealedEvidenceOf,
  setIdentityStatus,
} from '../../store/identity-repo.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const REASON_MAX = 500;
const STATUSES = ['pending', 'approved', 'rejected'];

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

function view(r: ReviewRow): IdentityReview {
  return {
    id: r.id,
    status: r.status,
    document_ticket: r.document_ticket,
    document_name: r.document_name,
    signer: { signer_id: r.signer_id, name: r.signer_name, email: r.signer_email, authority: r.authority, data: r.data },
    checks: r.checks,
    reason: r.reason,
    created_at: new Date(r.created_at).toISOString(),
    decided_at: iso(r.decided_at),
    evidence_deleted_at: iso(r.evidence_deleted_at),
    decided_by: r.provider === 'manual' || r.provider === AUTOMATIC_PROVIDER ? r.provider : 'provider',
    automatic_checks: (r.automatic_checks as IdentityReview['automatic_checks']) ?? null,
    document_set:
      r.set_signer_id !== null && r.set_uuid !== null ? { uuid: r.set_uuid, name: r.set_name ?? '', documents: r.covered } : null,
  };
}

export async function listIdentityReviews(
  deps: Pick<Deps, 'db'>,
  q: { accountId: string } & Static<typeof ReviewListQuery>,
): Promise<IdentityReviewList> {
  // The query's values are strings (the schema's); read and judged here, where each is named by
  // its own name (status, limit, before), as the API has always named them.
  if (q.status !== undefined && !STATUSES.includes(q.status)) {
    throw invalid('status', `expected one of ${STATUSES.join(', ')}`);
  }
  const limit = q.limit === undefined ? 50 : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
    throw invalid('limit', 'expected a whole number from 1 to 200');
  }
  let before: Date | undefined;
  if (q.before !== undefined) {
    before = new Date(Number(q.before));
    if (!/^\d{1,15}$/.test(q.before) || Number.isNaN(before.getTime())) {
      throw invalid('before', 'expected a time in milliseconds since the Unix epoch');
    }
  }
  const rows = await listReviews(deps.db, { accountId: q.accountId, status: q.status, limit, before });
  return { reviews: rows.map(view) };
}

async function requireReview(q: Parameters<typeof findReview>[0], accountId: string, id: string, lock = false): Promise<ReviewRow> {
  const r = UUID.test(id) ? await findReview(q, accountId, id, lock) : undefined;
  if (!r) {
    throw new AppError('REVIEW_NOT_FOUND', `no identity review ${id}`);
  }
  return r;
}

/** The review with its images (Base64), opened from their seal; none once the retention deleted them. */
export async function getIdentityReview(
  deps: Pick<Deps, 'db' | 'secrets'>,
  q: { accountId: string; id: string },
): Promise<IdentityReviewDetail> {
  const r = await requireReview(deps.db, q.accountId, q.id);
  const evidence = r.evidence_deleted_at ? [] : await sealedEvidenceOf(deps.db, r.id);
  return {
    ...view(r),
    evidence: evidence.map((e) => ({
      kind: e.kind,
      content_type: e.content_type,
      width: e.width,
      height: e.height,
      sha256: e.sha256,
      image: deps.secrets.open(e.sealed),
    })),
  };
}

export async function decideIdentityReview(
  deps: Pick<Deps, 'db' | 'clock'>,
  q: { accountId: string; id: string; body: Static<typeof ReviewDecision> },
): Promise<IdentityReview> {
  const { decision } = q.body;
  // A reason of spaces is none; its length counts once trimmed, so the rule stays here.
  const reason = q.body.reason?.trim() || null;
  if (decision === 'reject' && reason === null) {
    throw invalid('reason', 'required when rejecting: the signer and the sender are told why');
  }
  if (reason !== null && reason.length > REASON_MAX) {
    throw invalid('reason', `at most ${REASON_MAX} characters`);
  }
  return deps.db.transaction().execute(async (trx) => {
    const r = await requireReview(trx, q.accountId, q.id, true);
    if (r.status !== 'pending') {
      throw new AppError('INVALID_STATE', `review ${q.id} was decided already (${r.status})`);
    }
    if (r.provider !== 'manual') {
      throw new AppError('INVALID_STATE', `review ${q.id} is decided by the verification provider ${r.provider}`);
    }
    return applyDecision(trx, deps, r, { approved: decision === 'approve', reason, actor: 'account' });
  });
}

/**
 * Records a decision on a pending review, by a person of the account or a provider: the review, the
 * signer's identity_status, the history and the event, in the caller's transaction.
 */
export async function applyDecision(
  trx: Transaction<Database>,
  deps: Pick<Deps, 'clock'>,
  r: ReviewRow,
  d: {
    approved: boolean;
    reason: string | null;
    actor: 'account' | 'system';
    /** Who decided, when not the review's own provider: the built-in checks (run-checks.ts). */
    provider?: string;
  },
): Promise<IdentityReview> {
  const now = deps.clock.now();
  const provider = d.provider ?? r.provider;
  await decideReview(trx, r.id, { status: d.approved ? 'approved' : 'rejected', reason: d.reason, at: now, provider });
  // The review's own row, or each row of the set signer asked to verify (one per document of the set).
  const rows = await coveredRowsOf(trx, { rowId: r.signer_row_id, setSignerId: r.set_signer_id });
  // Their documents before their signer rows (in document order), as viewing and signing lock them:
  // changing a row first and then appending to its document's history could deadlock against them.
  await lockDocuments(trx, [...new Set(rows.map((x) => x.document_id))]);
  await setIdentityStatus(
    trx,
    rows.map((x) => x.id),
    d.approved ? 'verified' : 'verification_failed',
  );
  for (const row of rows) {
    await appendHistory(trx, {
      documentId: row.document_id,
      at: now,
      action: d.approved ? 'identity_verified' : 'identity_rejected',
      actor: d.actor,
      details: { review_id: r.id, signer_id: row.signer_id, provider, ...(d.reason ? { reason: d.reason } : {}) },
    });
    await emitEvent(trx, deps, {
      accountId: r.account_id,
      documentId: row.document_id,
      kind: d.approved ? 'identity_verification_passed' : 'identity_verification_failed',
      meta: {
        signer: { signer_id: row.signer_id, name: row.name, email: row.email, authority: row.authority, data: row.data },
        provider,
        reason: d.approved ? null : d.reason,
      },
      // One event per review and document (the key is unique in the account).
      dedupeKey: row.id === r.signer_row_id ? `identity:${r.id}` : `identity:${r.id}:${row.id}`,
    });
  }
  return view({ ...r, provider, status: d.approved ? 'approved' : 'rejected', reason: d.reason, decided_at: now });
}
