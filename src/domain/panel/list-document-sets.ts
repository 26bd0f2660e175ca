// The panel's list of an account's document sets: read-only, newest first, in pages of 50 (the
// next page starts before the last one's creation). A set itself is getDocumentSet's, as the API
// shows it.
import { invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { listAccountSets } from '../../store/panel-sets-repo.js';

const PAGE = 50;

export interface ListedSets {
  sets: {
    uuid: string;
    name: string;
    status: string;
    created_at: string;
    closed_at: string | null;
    expires_at: string | null;
    documents: number;
  }[];
  /** The `before` of the next page; absent on the last. */
  next_before?: string;
}

export async function listDocumentSets(deps: Pick<Deps, 'db'>, o: { accountId: string; before?: string }): Promise<ListedSets> {
  let before: Date | undefined;
  if (o.before) {
    before = new Date(o.before);
    if (Number.isNaN(before.getTime())) {
      throw invalid('before', 'expected an ISO 8601 date-time');
    }
  }
  const rows = await listAccountSets(deps.db, { accountId: o.accountId, limit: PAGE + 1, before });
  const page = rows.slice(0, PAGE);
  return {
    sets: page.map((r) => ({
      uuid: r.uuid,
      name: r.name,
      status: r.status,
      created_at: r.created_at.toISOString(),
      closed_at: r.closed_at?.toISOString() ?? null,
      // An OPEN set has no flow yet, so no expiration (as GET /api/documentset/{uuid} says).
      expires_at: r.status === 'OPEN' ? null : (r.expires_at?.toISOString() ?? null),
      documents: r.documents,
    })),
    ...(rows.length > PAGE ? { next_before: page[page.length - 1].created_at.toISOString() } : {}),
  };
}
