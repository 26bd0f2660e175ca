// GET /api/subscriptions: the account's subscriptions, disabled ones included, secrets never.
import type { Deps } from '../deps.js';
import type { EventKind } from './event-types.js';
import { listSubscriptions as list } from '../../store/subscriptions-repo.js';
import type { ListedSubscription, SubscriptionList } from '../../schemas/events.js';

export type { ListedSubscription };

export async function listSubscriptions(deps: Pick<Deps, 'db'>, opts: { accountId: string }): Promise<SubscriptionList> {
  const rows = await list(deps.db, opts.accountId);
  return {
    subscriptions: rows.map((r) => ({
      id: r.subscription_id,
      event: r.event as EventKind,
      url: r.url,
      status: r.active ? 'active' : 'disabled',
      disabled_reason: r.disabled_reason,
      disabled_at: r.disabled_at ? r.disabled_at.toISOString() : null,
      created_at: r.created_at.toISOString(),
    })),
  };
}
