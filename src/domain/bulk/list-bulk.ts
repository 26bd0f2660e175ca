// The account's bulk runs, newest first, a page at a time, with the service's row limit so that a
// page preparing a run can say it before sending.
import type { Deps } from '../deps.js';
import { invalid } from '../errors.js';
import { listRuns } from '../../store/bulk-repo.js';
import type { BulkRunList } from '../../schemas/bulk.js';

export async function listBulk(
  deps: Pick<Deps, 'db' | 'config'>,
  opts: { accountId: string; offset?: string; limit?: string },
): Promise<BulkRunList> {
  const offset = Number(opts.offset ?? 0);
  const limit = Number(opts.limit ?? 20);
  if (limit < 1 || limit > 100) {
    throw invalid('limit', 'expected 1 to 100');
  }
  // One more than asked tells whether a next page exists without counting every run.
  const found = await listRuns(deps.db, opts.accountId, offset, limit + 1);
  return {
    runs: found.slice(0, limit).map((r) => ({
      bulk_id: r.bulk_id,
      state: r.state,
      created_at: r.created_at.toISOString(),
      finished_at: r.finished_at?.toISOString() ?? null,
      total: r.row_count,
      created: r.created,
      refused: r.refused,
      pending: r.pending,
    })),
    offset,
    next_offset: found.length > limit ? offset + limit : null,
    max_rows: deps.config.limits.bulkRows,
  };
}
