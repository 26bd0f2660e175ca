// POST /api/subscriptions {event, url}: one URL for one event kind, with its own signing secret.
import type { Static } from '@sinclair/typebox';
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { newPublicId } from '../ids.js';
import type { EventKind } from './event-types.js';
import { newWebhookSecret } from './webhook-signature.js';
import { countActiveSubscriptions, insertOrFindSubscription } from '../../store/subscriptions-repo.js';
import type { CreatedSubscription, SubscriptionRequest } from '../../schemas/events.js';

/** Most active subscriptions an account may hold: each one is a delivery for every event of its kind. */
export const MAX_SUBSCRIPTIONS = 100;

export type { CreatedSubscription };

/**
 * Subscribes a URL to an event kind. Subscribing again with the same event and URL returns the
 * active subscription that exists (same id and secret) rather than delivering everything twice.
 */
export async function createSubscription(
  deps: Pick<Deps, 'db' | 'secrets' | 'clock'>,
  opts: { accountId: string } & Static<typeof SubscriptionRequest>,
): Promise<CreatedSubscription> {
  const url = checkUrl(opts.url);
  if ((await countActiveSubscriptions(deps.db, opts.accountId)) >= MAX_SUBSCRIPTIONS) {
    throw new AppError('TOO_MANY_SUBSCRIPTIONS', `an account may hold ${MAX_SUBSCRIPTIONS} active subscriptions; delete one first`, {
      limit: MAX_SUBSCRIPTIONS,
    });
  }
  const secret = newWebhookSecret();
  const row = await insertOrFindSubscription(deps.db, {
    subscriptionId: newPublicId(),
    accountId: opts.accountId,
    event: opts.event,
    url,
    secretEnc: deps.secrets.seal(secret),
    at: deps.clock.now(),
  });
  return {
    id: row.subscription_id,
    event: row.event as EventKind,
    url: row.url,
    secret: row.created ? secret : deps.secrets.open(row.secret_enc),
  };
}

/**
 * An absolute http(s) URL without user name or password (the delivery guard refuses those); the
 * schema checked it is a URI of at most 2048 characters, not its scheme nor its parts. Its address
 * is judged at each delivery, after DNS resolution, by the URL guard: a name may resolve
 * differently then.
 */
function checkUrl(value: string): string {
  const rule = 'expected an absolute http or https URL';
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw invalid('url', rule);
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) {
    throw invalid('url', rule);
  }
  if (u.username || u.password) {
    throw invalid('url', 'a user name or password in the URL is not allowed');
  }
  return u.href;
}
