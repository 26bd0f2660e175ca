// GET /api/document: the account's documents created in a time window, newest first, paged by an
// opaque token that encodes the position of the last item returned.
import { invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { listDocuments as listRows } from '../../store/documents-repo.js';
import { archivalStates } from './archival-state.js';
import type { DocumentListing } from '../../schemas/documents.js';

export type { DocumentListing } from '../../schemas/documents.js';

export async function listDocuments(
  deps: Pick<Deps, 'db' | 'clock'>,
  q: { accountId: string; from?: string; to?: string; limit?: string; nextToken?: string },
): Promise<DocumentListing> {
  const from = q.from === undefined ? new Date(0) : epochMs('from', q.from);
  const to = q.to === undefined ? deps.clock.now() : epochMs('to', q.to);
  if (from > to) {
    throw invalid('from', 'must not be later than to');
  }
  let limit = 100;
  if (q.limit !== undefined) {
    limit = Number(q.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
      throw invalid('limit', 'expected a whole number from 1 to 500');
    }
  }
  const after = q.nextToken === undefined ? undefined : decodeToken(q.nextToken);
  // One extra row tells whether another page exists without a count query.
  const rows = await listRows(deps.db, { accountId: q.accountId, from, to, limit: limit + 1, after });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const archival = await archivalStates(
    deps,
    page.map((r) => r.id),
  );
  return {
    documents: page.map((r) => ({
      document_ticket: r.ticket,
      name: r.name,
      status: r.status,
      created_at: r.created_at.toISOString(),
      signers: r.signers,
      signed_count: r.signers.filter((s) => s.status === 'signed').length,
      ...archival.get(r.id)!,
    })),
    ...(rows.length > limit && last ? { nextToken: encodeToken(last.created_at, last.id) } : {}),
  };
}

function epochMs(field: string, v: string): Date {
  const n = Number(v);
  if (!/^\d{1,15}$/.test(v) || !Number.isSafeInteger(n)) {
    throw invalid(field, 'expected a time in milliseconds since the Unix epoch');
  }
  return new Date(n);
}

function encodeToken(createdAt: Date, id: string): string {
  return Buffer.from(JSON.stringify([createdAt.getTime(), id])).toString('base64url');
}

function decodeToken(token: string): { createdAt: Date; id: string } {
  try {
    const [ms, id] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof ms === 'number' && typeof id === 'string' && /^\d+$/.test(id)) {
      return { createdAt: new Date(ms), id };
    }
  } catch {
    // fall through
  }
  throw invalid('nextToken', 'not a token returned by this operation');
}
