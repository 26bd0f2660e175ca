// SQL for the webhook deliveries of notifications, one per (notification, target): where an event
// goes, and the claim and outcome of each delivery attempt.
import type { Selectable, Transaction } from 'kysely';
import type { Db } from './db.js';
import { refreshNotifications } from './notifications-repo.js';
import type { Database, DeliveryState, DocumentStatus, EventKind, NotificationDeliveriesTable, NotificationsTable } from './schema.js';

type Trx = Transaction<Database>;

/** The account's webhook URL, or one subscription: 'account' | 'subscription:<subscription_id>'. */
export type DeliveryTarget = string;

export const ACCOUNT_TARGET = 'account';

export function subscriptionTarget(subscriptionId: string): DeliveryTarget {
  return `subscription:${subscriptionId}`;
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
    .where('event', '=', kind as EventKind)
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
  /** The bulk run of a bulk_completed event: its id, how it ended, and its rows' outcomes. */
  bulkId: string | null;
  bulkState: 'running' | 'completed' | 'stopped' | null;
  bulkCreated: number | null;
  bulkRefused: number | null;
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
    .leftJoin('bulk_runs as b', 'b.id', 'n.bulk_run_id')
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
      'b.bulk_id as bulkId',
      'b.state as bulkState',
      'b.created_rows as bulkCreated',
      'b.refused_rows as bulkRefused',
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

const LOG_DELIVERY_COLUMNS = [
  'id',
  'target',
  'state',
  'attempts',
  'last_status',
  'last_error',
  'last_attempt_at',
  'next_attempt_at',
  'delivered_at',
  'created_at',
] as const;

/** One row of an account's delivery log (webhook-deliveries.ts): the delivery, its notification, document and URL. */
export type LoggedDelivery = Pick<Selectable<NotificationDeliveriesTable>, (typeof LOG_DELIVERY_COLUMNS)[number]> &
  Pick<Selectable<NotificationsTable>, 'notification_id' | 'kind'> & {
    document_ticket: string | null;
    document_name: string | null;
    subscription_id: string | null;
    url: string | null;
  };

/** The deliveries with what the log shows of each, to be narrowed by a where. */
function deliveryLog(q: Db | Trx) {
  return q
    .selectFrom('notification_deliveries as d')
    .innerJoin('notifications as n', 'n.id', 'd.notification_id')
    .innerJoin('accounts as a', 'a.id', 'n.account_id')
    .leftJoin('documents as doc', 'doc.id', 'n.document_id')
    .leftJoin('subscriptions as s', 's.id', 'd.subscription_id')
    .select(LOG_DELIVERY_COLUMNS.map((c) => `d.${c}` as const))
    .select(['n.notification_id', 'n.kind', 'doc.ticket as document_ticket', 'doc.name as document_name', 's.subscription_id'])
    .select((eb) => eb.case().when('d.target', '=', 'account').then(eb.ref('a.webhook_url')).else(eb.ref('s.url')).end().as('url'));
}

/** The account's deliveries, newest first, keyset-paged on id. */
export async function listAccountDeliveries(
  db: Db,
  q: { accountId: string; state?: DeliveryState; limit: number; beforeId?: string },
): Promise<LoggedDelivery[]> {
  const { state, beforeId } = q;
  return deliveryLog(db)
    .where('n.account_id', '=', q.accountId)
    .$if(state !== undefined, (qb) => qb.where('d.state', '=', state!))
    .$if(beforeId !== undefined, (qb) => qb.where('d.id', '<', beforeId!))
    .orderBy('d.id', 'desc')
    .limit(q.limit)
    .execute();
}

/** One delivery of the account, locked for a change; undefined for another account's. */
export async function lockAccountDelivery(
  trx: Trx,
  accountId: string,
  id: string,
): Promise<(LoggedDelivery & { notification_row_id: string }) | undefined> {
  return deliveryLog(trx)
    .select('n.id as notification_row_id')
    .where('n.account_id', '=', accountId)
    .where('d.id', '=', id)
    .forUpdate('d')
    .executeTakeFirst();
}

/** Makes a delivery pending again with its next attempt now ("send again"). */
export async function reopenDelivery(trx: Trx, d: { id: string; notificationRowId: string }, at: Date): Promise<void> {
  await trx
    .updateTable('notification_deliveries')
    .set({ state: 'pending', next_attempt_at: at, updated_at: at })
    .where('id', '=', d.id)
    .execute();
  await refreshNotifications(trx, [d.notificationRowId], at);
}
