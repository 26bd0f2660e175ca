// DELETE /api/subscriptions/{id}: stops deliveries to that URL, those already queued included.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { deleteSubscription as remove } from '../../store/subscriptions-repo.js';
import type { DeletedSubscription } from '../../schemas/events.js';

export async function deleteSubscription(
  deps: Pick<Deps, 'db' | 'clock'>,
  opts: { accountId: string; id: string },
): Promise<DeletedSubscription> {
  if (!(await remove(deps.db, opts.accountId, opts.id, deps.clock.now()))) {
    throw new AppError('SUBSCRIPTION_NOT_FOUND', `no subscription ${opts.id}`);
  }
  return { id: opts.id, status: 'deleted' };
}
