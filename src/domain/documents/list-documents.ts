// GET /api/document: the account's documents created in a time window, newest first, paged by an
// opaque token that encodes the position of the last item returned.
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { type ListedDocument, listDocuments as listRows } from '../../store/documents-repo.js';
import { type ArchivalState, archivalStates } from './archival-state.js';
import type { DocumentListing } from '../../schemas/documents.js';

export type { DocumentListing } from '../../schemas/documents.js';

/** A document's states, as the listing reports them. */
export const DOCUMENT_STATES = ['draft', 'pending', 'completed', 'rejected', 'expired', 'cancelled', 'deleted'] as const;

export async function listDocuments(
  deps: Pick<Deps, 'db' | 'clock'>,
  q: {
    accountId: string;
    from?: string;
    to?: string;
    limit?: string;
    nextToken?: string;
    /** Only the account panel filters by these (GET /api/document takes none of them). */
    status?: string;
    search?: string;
  },
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
  if (q.status !== undefined && !(DOCUMENT_STATES as readonly string[]).includes(q.status)) {
    throw invalid('status', `expected one of ${DOCUMENT_STATES.join(', ')}`);
  }
  const search = q.search?.trim() || undefined;
  if (search !== undefined && search.length > 200) {
    throw invalid('q', 'at most 200 characters');
  }
  const after = q.nextToken === undefined ? undefined : decodeToken(q.nextToken);
  // One extra row tells whether another page exists without a count query.
  const rows = await listRows(deps.db, { accountId: q.accountId, from, to, limit: limit + 1, after, status: q.status, search });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const archival = await archivalStates(
    deps,
    page.map((r) => r.id),
  );
  return {
    documents: page.map((r) => listed(r, archival.get(r.id)!)),
    ...(rows.length > limit && last ? { nextToken: encodeToken(last.created_at, last.id) } : {}),
  };
}

/** One document of the account as the listing shows it (the panel's document page); 404 when not the account's. */
export async function findListedDocument(
  deps: Pick<Deps, 'db'>,
  q: { accountId: string; ticket: string },
): Promise<DocumentListing['documents'][number]> {
  const [row] = await listRows(deps.db, { accountId: q.accountId, from: new Date(0), to: new Date(8.64e15), limit: 1, ticket: q.ticket });
  if (!row) {
    throw new AppError('DOCUMENT_NOT_FOUND', `no document ${q.ticket}`);
  }
  const archival = await archivalStates(deps, [row.id]);
  return listed(row, archival.get(row.id)!);
}

function listed(r: ListedDocument, archival: ArchivalState): DocumentListing['documents'][number] {
  return {
    document_ticket: r.ticket,
    name: r.name,
    status: r.status,
    created_at: r.created_at.toISOString(),
    signers: r.signers,
    signed_count: r.signers.filter((s) => s.status === 'signed').length,
    ...archival,
  };
}

/** An epoch-milliseconds query value (the listing's `from` and `to`), else a 400 naming the field. */
export function epochMs(field: string, v: string): Date {
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
