// Whether the database answers, for GET /healthz: a 200 there tells a load balancer this process
// can serve requests.
import type { Deps } from '../deps.js';
import { pingDatabase } from '../../store/db.js';

/** Resolves when the database answers a query; rejects when it is unreachable. */
export async function checkDatabase(deps: Pick<Deps, 'db'>): Promise<void> {
  await pingDatabase(deps.db);
}
