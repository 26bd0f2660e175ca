// SQL for notifications (the events recorded for an account): their insertion, the summary of their
// deliveries, and what POST /developers/webhook reads back.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, EventKind } from './schema.js';

type Trx = Transaction<Database>;

export interface NewNotification {
  notificationId: string;
  accountId: string;
  documentId: string | null;
  setId: string | null;
  /** The bulk run a bulk_completed event is about. */
  bulkRunId?: string | null;
  kind: string;
  meta: unknown;
  dedupeKey: string | null;
  at: Date;
}

/**
 * Inserts a notification; the set defaults to the document's. With a dedupe key already used by
 * the account, inserts nothing and returns the existing notification's public id.
 */
export async function insertNotification(trx: Trx, n: NewNotification): Promise<{ id: string; notificationId: string; created: boolean }> {
  if (n.documentId !== null) {
    // The document must be the account's: a producer's bug must not leak one account's document
    // into another account's notifications.
    const doc = await trx
      .selectFrom('documents')
      .select('set_id')
      .where('id', '=', n.documentId)
      .where('account_id', '=', n.accountId)
      .executeTakeFirst();
    if (!doc) {
      throw new Error(`emitEvent: document ${n.documentId} is not one of account ${n.accountId}`);
    }
    n = { ...n, setId: n.setId ?? doc.set_id };
  }
  const row = await trx
    .insertInto('notifications')
    .values({
      notification_id: n.notificationId,
      account_id: n.accountId,
      document_id: n.documentId,
      set_id: n.setId,
      bulk_run_id: n.bulkRunId ?? null,
      // Callers name one of EVENT_KINDS; the column's CHECK refuses anything else.
      kind: n.kind as EventKind,
      meta: JSON.stringify(n.meta ?? {}),
      dedupe_key: n.dedupeKey,
      created_at: n.at,
      updated_at: n.at,
    })
    .onConflict((oc) => oc.columns(['account_id', 'dedupe_key']).doNothing())
    .returning(['id', 'notification_id'])
    .executeTakeFirst();
  if (row) {
    return { id: row.id, notificationId: row.notification_id, created: true };
  }
  const existing = await trx
    .selectFrom('notifications')
    .select(['id', 'notification_id'])
    .where('account_id', '=', n.accountId)
    .where('dedupe_key', '=', n.dedupeKey)
    .executeTakeFirstOrThrow();
  return { id: existing.id, notificationId: existing.notification_id, created: false };
}

/**
 * Recomputes the summary columns of notifications from their deliveries: pending while one is
 * pending, then delivered if one was, failed if one failed, else discarded.
 */
export async function refreshNotifications(trx: Trx, notificationRowIds: string[], at: Date): Promise<void> {
  if (notificationRowIds.length === 0) {
    return;
  }
  // An UPDATE from an aggregate (bool_or, ordered array_agg) over the deliveries: plainer in SQL.
  await sql`update notifications n set
      state = s.state, attempts = s.attempts, last_status = s.last_status, last_error = s.last_error,
      delivered_at = s.delivered_at, updated_at = ${at}
    from (
      select d.notification_id,
        case when bool_or(d.state = 'pending') then 'pending'
             when bool_or(d.state = 'delivered') then 'delivered'
             when bool_or(d.state = 'failed') then 'failed'
             else 'discarded' end as state,
        sum(d.attempts)::int as attempts,
        (array_agg(d.last_status order by d.updated_at desc, d.id desc))[1] as last_status,
        (array_agg(d.last_error order by d.updated_at desc, d.id desc))[1] as last_error,
        min(d.delivered_at) as delivered_at
      from notification_deliveries d
      where d.notification_id = any(${notificationRowIds}::bigint[])
      group by d.notification_id
    ) s
    where n.id = s.notification_id`.execute(trx);
}

/**
 * Discards the pending deliveries of a document's notifications (the document is being deleted)
 * and returns them, so the caller drops their queued jobs in the same transaction; a job already
 * running finds its delivery discarded and sends nothing.
 */
export async function discardPendingNotifications(
  trx: Trx,
  documentId: string,
  reason: string,
  at: Date,
): Promise<{ notificationId: string; target: string }[]> {
  const rows = await trx
    .updateTable('notification_deliveries as d')
    .from('notifications as n')
    .set({ state: 'discarded', last_error: reason, next_attempt_at: null, updated_at: at })
    .whereRef('n.id', '=', 'd.notification_id')
    .where('n.document_id', '=', documentId)
    .where('n.state', '=', 'pending')
    .where('d.state', '=', 'pending')
    .returning(['n.id as row_id', 'n.notification_id', 'd.target'])
    .execute();
  await refreshNotifications(trx, [...new Set(rows.map((r) => r.row_id))], at);
  return rows.map((r) => ({ notificationId: r.notification_id, target: r.target }));
}

/** A notification of the account, with its document's current state, for POST /developers/webhook. */
export async function findNotification(db: Db, accountId: string, notificationId: string) {
  return db
    .selectFrom('notifications as n')
    .leftJoin('documents as doc', 'doc.id', 'n.document_id')
    .leftJoin('document_sets as ds', 'ds.id', 'n.set_id')
    .select([
      'n.notification_id',
      'n.kind',
      'n.meta',
      'n.created_at',
      'doc.id as document_id',
      'doc.ticket as document_ticket',
      'doc.name as document_name',
      'doc.status as document_status',
      'doc.original_sha256',
      'ds.uuid as set_uuid',
    ])
    .where('n.account_id', '=', accountId)
    .where('n.notification_id', '=', notificationId)
    .executeTakeFirst();
}

/** The signers of a document in sticker order, as the listing shows them. */
export async function documentSigners(db: Db, documentId: string) {
  return db
    .selectFrom('signers')
    .select(['signer_id', 'name', 'email', 'authority', 'data', 'status'])
    .where('document_id', '=', documentId)
    .where('role', '=', 'signer')
    .orderBy('position')
    .execute();
}
