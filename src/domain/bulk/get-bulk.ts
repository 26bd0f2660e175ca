// GET /api/bulk/{bulk_id}: a run's state, its counts, and the outcomes of its rows a page at a time.
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { countRows, findRun, listRows } from '../../store/bulk-repo.js';
import type { BulkRun } from '../../schemas/bulk.js';

export async function getBulk(
  deps: Pick<Deps, 'db'>,
  opts: { accountId: string; bulkId: string; offset?: string; limit?: string },
): Promise<BulkRun> {
  // Another account's run is not found either (decisions.md "Identifiers").
  const run = await findRun(deps.db, opts.accountId, opts.bulkId);
  if (!run) {
    throw new AppError('BULK_NOT_FOUND', `no bulk run ${opts.bulkId}`);
  }
  const offset = Number(opts.offset ?? 0);
  const limit = Number(opts.limit ?? 100);
  if (limit < 1 || limit > 1000) {
    throw invalid('limit', 'expected 1 to 1000');
  }
  const [counts, rows] = await Promise.all([countRows(deps.db, run.id), listRows(deps.db, run.id, offset, limit)]);
  const outcomes: BulkRun['rows'] = [];
  for (const r of rows) {
    if (r.state === 'created' && r.ticket !== null) {
      outcomes.push({ index: r.index, document_ticket: r.ticket });
    } else if (r.state === 'refused' || r.state === 'not_made') {
      outcomes.push({ index: r.index, error: r.error as { code: string; message: string; details?: unknown } });
    }
  }
  return {
    bulk_id: run.bulk_id,
    state: run.state,
    created_at: run.created_at.toISOString(),
    finished_at: run.finished_at?.toISOString() ?? null,
    total: run.row_count,
    created: counts.created,
    refused: counts.refused + counts.not_made,
    not_made: counts.not_made,
    pending: counts.pending + counts.claimed,
    offset,
    rows: outcomes,
    next_offset: offset + limit < run.row_count ? offset + limit : null,
  };
}
