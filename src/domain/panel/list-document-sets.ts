// The panel's list of an account's document sets: read-only, newest first, filtered by state, by
// text in the name (or the whole uuid) and by creation dates, in pages (an opaque token names
// where the next one starts). A set itself is getDocumentSet's, as the API shows it.
import { invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { epochMs } from '../documents/list-documents.js';
import type { PanelSetList, PanelSetQuery } from '../../schemas/panel.js';
import { SET_STATUSES } from '../../schemas/sets.js';
import { listAccountSets } from '../../store/panel-sets-repo.js';

const DEFAULT_PAGE = 50;
const MAX_PAGE = 100;

/** The query as the route checked it (each value a string); its values' rules are checked here, so a bad one is a 400 naming it. */
export type SetListQuery = PanelSetQuery & { accountId: string };

export async function listDocumentSets(deps: Pick<Deps, 'db'>, o: SetListQuery): Promise<PanelSetList> {
  if (o.status !== undefined && !(SET_STATUSES as readonly string[]).includes(o.status)) {
    throw invalid('status', `expected one of ${SET_STATUSES.join(', ')}`);
  }
  const search = o.q?.trim() || undefined;
  if (search !== undefined && search.length > 200) {
    throw invalid('q', 'at most 200 characters');
  }
  const from = o.from === undefined ? undefined : epochMs('from', o.from);
  const to = o.to === undefined ? undefined : epochMs('to', o.to);
  if (from && to && from > to) {
    throw invalid('from', 'must not be later than to');
  }
  let limit = DEFAULT_PAGE;
  if (o.limit !== undefined) {
    limit = Number(o.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
      throw invalid('limit', `expected a whole number from 1 to ${MAX_PAGE}`);
    }
  }
  const afterId = o.nextToken === undefined ? undefined : decodeToken(o.nextToken);
  // One extra row tells whether another page exists without a count query.
  const rows = await listAccountSets(deps.db, { accountId: o.accountId, limit: limit + 1, status: o.status, search, from, to, afterId });
  const page = rows.slice(0, limit);
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
    ...(rows.length > limit ? { nextToken: encodeToken(page[page.length - 1].id) } : {}),
  };
}

function encodeToken(id: string): string {
  return Buffer.from(JSON.stringify({ set: id })).toString('base64url');
}

function decodeToken(token: string): string {
  try {
    const { set } = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { set?: unknown };
    if (typeof set === 'string' && /^\d{1,18}$/.test(set)) {
      return set;
    }
  } catch {
    // fall through
  }
  throw invalid('nextToken', 'not a token returned by this operation');
}
