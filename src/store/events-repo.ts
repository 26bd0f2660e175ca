// SQL for notifications and their deliveries, and the delivery jobs on graphile-worker's queue.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, DeliveryState, DocumentStatus } from './schema.js';

type Trx = Transaction<Database>;

/** The graphile-worker task that delivers one notification to one target. */
export const DELIVER_WEBHOOK_TASK = 'deliver_webhook';

/** The account's webhook URL, or one subscription: 'account' | 'subscription:<subscription_id>'. */
export type DeliveryTarget = string;

export const ACCOUNT_TARGET = 'account';

export function subscriptionTarget(subscriptionId: string): DeliveryTarget {
  return `subscription:${subscriptionId}`;
}

/**
 * One job key per (notification, target): graphile-worker keeps at most one waiting job per key,
 * so adding the job again (a producer running twice in one transaction, a retry being scheduled)
 * never leaves two deliveries of the same thing queued.
 */
export function deliveryJobKey(notificationId: string, target: DeliveryTarget): string {
  return `${DELIVER_WEBHOOK_TASK}:${notificationId}:${target}`;
}

export interface DeliveryJobPayload {
  notificationId: string;
  target: DeliveryTarget;
}

/** Queues a delivery attempt in the caller's transaction: it commits or vanishes with it. */
export async function addDeliveryJob(trx: Trx, job: DeliveryJobPayload & { runAt?: Date }): Promise<void> {
  const payload = JSON.stringify({ notificationId: job.notificationId, target: job.target });
  await sql`select graphile_worker.add_job(
      ${DELIVER_WEBHOOK_TASK},
      ${payload}::json,
      run_at := ${job.runAt ?? null}::timestamptz,
      job_key := ${deliveryJobKey(job.notificationId, job.target)}
    )`.execute(trx);
}

export interface NewNotification {
  notificationId: string;
  accountId: string;
  documentId: string | null;
  setId: string | null;
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
      kind: n.kind,
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

/** Where an event of this kind goes: the account's webhook URL if set, and each active subscription. */
export async function deliveryTargets(
  trx: Trx,
  accountId: string,
  kind: string,
): Promise<{ target: DeliveryTarget; subscriptionRowId: string | null }[]> {
  const account = await trx.selectFrom('accounts').select('webhook_url').where('id', '=', accountId).executeTakeFirst();
  const subs = await trx
    .selectFrom('subscriptions')
    .select(['id', 'subscription_id'])
    .where('account_id', '=', accountId)
    .where('event', '=', kind)
    .where('active', '=', true)
    .orderBy('id')
    .execute();
  return [
    ...(account?.webhook_url ? [{ target: ACCOUNT_TARGET, subscriptionRowId: null }] : []),
    ...subs.map((s) => ({ target: subscriptionTarget(s.subscription_id), subscriptionRowId: s.id })),
  ];
}

export async function insertDeliveries(
  trx: Trx,
  notificationRowId: string,
  targets: { target: DeliveryTarget; subscriptionRowId: string | null }[],
  at: Date,
): Promise<void> {
  if (targets.length === 0) {
    await trx
      .updateTable('notifications')
      .set({ state: 'discarded', last_error: 'no delivery target: no webhook URL and no subscription', updated_at: at })
      .where('id', '=', notificationRowId)
      .execute();
    return;
  }
  await trx
    .insertInto('notification_deliveries')
    .values(
      targets.map((t) => ({
        notification_id: notificationRowId,
        target: t.target,
        subscription_id: t.subscriptionRowId,
        created_at: at,
        updated_at: at,
      })),
    )
    .onConflict((oc) => oc.columns(['notification_id', 'target']).doNothing())
    .execute();
}

/**
 * Recomputes the summary columns of notifications from their deliveries: pending while one is
 * pending, then delivered if one was, failed if one failed, else discarded.
 */
export async function refreshNotifications(trx: Trx, notificationRowIds: string[], at: Date): Promise<void> {
  if (notificationRowIds.length === 0) {
    return;
  }
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
 * and drops their queued jobs; a job already running finds its delivery discarded and sends nothing.
 */
export async function discardPendingNotifications(trx: Trx, documentId: string, reason: string, at: Date): Promise<number> {
  const rows = await sql<{ row_id: string; notification_id: string; target: string }>`
    update notification_deliveries d
    set state = 'discarded', last_error = ${reason}, next_attempt_at = null, updated_at = ${at}
    from notifications n
    where n.id = d.notification_id and n.document_id = ${documentId} and n.state = 'pending' and d.state = 'pending'
    returning n.id as row_id, n.notification_id, d.target`.execute(trx);
  for (const r of rows.rows) {
    await sql`select graphile_worker.remove_job(${deliveryJobKey(r.notification_id, r.target)})`.execute(trx);
  }
  await refreshNotifications(trx, [...new Set(rows.rows.map((r) => r.row_id))], at);
  return rows.rows.length;
}

/** Everything one delivery attempt needs, read in one query. */
export interface DeliveryContext {
  deliveryId: string;
  notificationRowId: string;
  notificationId: string;
  accountId: string;
  kind: string;
  meta: unknown;
  createdAt: Date;
  state: DeliveryState;
  attempts: number;
  documentTicket: string | null;
  documentName: string | null;
  documentStatus: DocumentStatus | null;
  setUuid: string | null;
  accountWebhookUrl: string | null;
  accountSecretEnc: Buffer | null;
  subscriptionRowId: string | null;
  subscriptionUrl: string | null;
  subscriptionSecretEnc: Buffer | null;
  subscriptionActive: boolean | null;
}

export async function loadDelivery(db: Db, notificationId: string, target: DeliveryTarget): Promise<DeliveryContext | undefined> {
  const r = await db
    .selectFrom('notification_deliveries as d')
    .innerJoin('notifications as n', 'n.id', 'd.notification_id')
    .innerJoin('accounts as a', 'a.id', 'n.account_id')
    .leftJoin('documents as doc', 'doc.id', 'n.document_id')
    .leftJoin('document_sets as ds', 'ds.id', 'n.set_id')
    .leftJoin('subscriptions as s', 's.id', 'd.subscription_id')
    .select([
      'd.id as deliveryId',
      'n.id as notificationRowId',
      'n.notification_id as notificationId',
      'n.account_id as accountId',
      'n.kind',
      'n.meta',
      'n.created_at as createdAt',
      'd.state',
      'd.attempts',
      'doc.ticket as documentTicket',
      'doc.name as documentName',
      'doc.status as documentStatus',
      'ds.uuid as setUuid',
      'a.webhook_url as accountWebhookUrl',
      'a.webhook_secret_enc as accountSecretEnc',
      's.id as subscriptionRowId',
      's.url as subscriptionUrl',
      's.secret_enc as subscriptionSecretEnc',
      's.active as subscriptionActive',
    ])
    .where('n.notification_id', '=', notificationId)
    .where('d.target', '=', target)
    .executeTakeFirst();
  return r as DeliveryContext | undefined;
}

/**
 * Claims attempt number attempts+1 of a pending delivery (a conditional UPDATE): of two runs of
 * the same attempt, only one gets it. Returns the attempt number, or undefined when not claimed.
 */
export async function claimAttempt(db: Db, deliveryId: string, seenAttempts: number, at: Date): Promise<number | undefined> {
  const r = await db
    .updateTable('notification_deliveries')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), last_attempt_at: at, next_attempt_at: null, updated_at: at }))
    .where('id', '=', deliveryId)
    .where('state', '=', 'pending')
    .where('attempts', '=', seenAttempts)
    .returning('attempts')
    .executeTakeFirst();
  return r?.attempts;
}

/** Records the outcome of an attempt (or a decision not to send) on a pending delivery. */
export async function settleDelivery(
  trx: Trx,
  d: { deliveryId: string; notificationRowId: string },
  outcome: { state: DeliveryState; status: number | null; error: string | null; nextAttemptAt?: Date; at: Date },
): Promise<boolean> {
  const r = await trx
    .updateTable('notification_deliveries')
    .set({
      state: outcome.state,
      last_status: outcome.status,
      last_error: outcome.error,
      next_attempt_at: outcome.nextAttemptAt ?? null,
      delivered_at: outcome.state === 'delivered' ? outcome.at : null,
      updated_at: outcome.at,
    })
    .where('id', '=', d.deliveryId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  await refreshNotifications(trx, [d.notificationRowId], outcome.at);
  return Number(r.numUpdatedRows) === 1;
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
    .orderBy('position')
    .execute();
}
