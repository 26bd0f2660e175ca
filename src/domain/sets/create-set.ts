// POST /api/documentset: an empty, OPEN document set.
import { invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { newPublicId } from '../ids.js';
import { insertSet } from '../../store/documents-repo.js';
import type { CreatedSet } from '../../schemas/sets.js';

export async function createDocumentSet(
  deps: Pick<Deps, 'db' | 'clock'>,
  opts: { accountId: string; name?: unknown; metadata?: unknown },
): Promise<CreatedSet> {
  if (opts.name !== undefined && (typeof opts.name !== 'string' || opts.name.length > 200)) {
    throw invalid('name', 'expected a string of at most 200 characters');
  }
  if (opts.metadata !== undefined && (typeof opts.metadata !== 'object' || opts.metadata === null || Array.isArray(opts.metadata))) {
    throw invalid('metadata', 'expected a JSON object');
  }
  if (opts.metadata !== undefined && JSON.stringify(opts.metadata).length > 16 * 1024) {
    throw invalid('metadata', 'at most 16 KiB of JSON');
  }
  const row = await insertSet(deps.db, {
    uuid: newPublicId(),
    accountId: opts.accountId,
    name: (opts.name as string | undefined) ?? '',
    metadata: opts.metadata,
    at: deps.clock.now(),
  });
  return { uuid: row.uuid, status: row.status, name: row.name };
}
