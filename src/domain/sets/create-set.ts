// POST /api/documentset: an empty, OPEN document set.
import { invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { newPublicId } from '../ids.js';
import { insertSet } from '../../store/documents-repo.js';
import type { CreateSetBody, CreatedSet } from '../../schemas/sets.js';

export async function createDocumentSet(
  deps: Pick<Deps, 'db' | 'clock'>,
  opts: { accountId: string; body: CreateSetBody },
): Promise<CreatedSet> {
  const { name, metadata } = opts.body ?? {};
  // A size JSON Schema cannot measure: the metadata as it is stored.
  if (metadata !== undefined && JSON.stringify(metadata).length > 16 * 1024) {
    throw invalid('metadata', 'at most 16 KiB of JSON');
  }
  const row = await insertSet(deps.db, {
    uuid: newPublicId(),
    accountId: opts.accountId,
    name: name ?? '',
    metadata,
    at: deps.clock.now(),
  });
  return { uuid: row.uuid, status: row.status, name: row.name };
}
