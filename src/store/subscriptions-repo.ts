// SQL for per-event webhook subscriptions.
import type { Selectable, Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, EventKind, SubscriptionsTable } from './schema.js';

const COLUMNS = ['subscription_id', 'event', 'url', 'active', 'disabled_reason', 'disabled_at', 'created_at'] as const;

export type SubscriptionRow = Pick<Selectable<SubscriptionsTable>, (typeof COLUMNS)[number]>;

export async function countActiveSubscriptions(db: Db, accountId: string): Promise<number> {
  const r = await db
    .selectFrom('subscriptions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('active', '=', true)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Inserts an active subscription, or, when the account already has an active one for that event
 * and URL, returns that one (with its sealed secret) instead.
 */
export async function insertOrFindSubscription(
  db: Db,
  s: { subscriptionId: string; accountId: string; event: string; url: string; secretEnc: Buffer; at: Date },
): Promise<SubscriptionRow & { secret_enc: Buffer; created: boolean }> {
  const inserted = await db
    .insertInto('subscriptions')
    .values({
      subscription_id: s.subscriptionId,
      account_id: s.accountId,
      // The route checked the event against EVENT_KINDS; the column's CHECK refuses anything else.
      event: s.event as EventKind,
      url: s.url,
      secret_enc: s.secretEnc,
      created_at: s.at,
    })
    .onConflict((oc) => oc.columns(['account_id', 'event', 'url']).where('active', '=', true).doNothing())
    .returning([...COLUMNS, 'secret_enc'])
    .executeTakeFirst();
  if (inserted) {
    return { ...inserted, created: true };
  }
  const existing = await db
    .selectFrom('subscriptions')
    .select([...COLUMNS, 'secret_enc'])
    .where('account_id', '=', s.accountId)
    .where('event', '=', s.event as EventKind)
    .where('url', '=', s.url)
    .where('active', '=', true)
    .executeTakeFirstOrThrow();
  return { ...existing, created: false };
}

/** The account's subscriptions that were not deleted (disabled ones included), oldest first. */
export async function listSubscriptions(db: Db, accountId: string): Promise<SubscriptionRow[]> {
  return db
    .selectFrom('subscriptions')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Soft-deletes one of the account's subscriptions; false when it has none by that id (or it is gone). */
export async function deleteSubscription(db: Db, accountId: string, subscriptionId: string, at: Date): Promise<boolean> {
  const r = await db
    .updateTable('subscriptions')
    .set((eb) => ({
      active: false,
      disabled_reason: eb.fn.coalesce('disabled_reason', eb.val('unsubscribed')),
      disabled_at: eb.fn.coalesce('disabled_at', eb.val(at)),
      deleted_at: at,
    }))
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Stops deliveries to a subscription (its receiver answered 410 Gone). */
export async function disableSubscription(trx: Transaction<Database>, subscriptionRowId: string, reason: string, at: Date): Promise<void> {
  await trx
    .updateTable('subscriptions')
    .set({ active: false, disabled_reason: reason, disabled_at: at })
    .where('id', '=', subscriptionRowId)
    .where('active', '=', true)
    .execute();
}
