// Job universal_sweep (daily): the universal renditions nobody is working on. A document completed
// before this version has no build job, and a renewal job removed by hand leaves a rendition that
// would never be renewed; each gets its job here, in batches. Idempotent: a document that has its
// job is not selected, and the jobs are keyed per document.
import type { Deps } from '../deps.js';
import { addUniversalBuildJob } from '../../jobs/payloads/universal-build.js';
import { addUniversalRenewJob } from '../../jobs/payloads/universal-renew.js';
import { documentsOwedUniversal, markUniversalPending, renewalsWithoutJob } from '../../store/universal-repo.js';

const BATCH = 500;

export async function sweepUniversal(deps: Pick<Deps, 'db'>): Promise<{ builds: number; renewals: number }> {
  const owed = await documentsOwedUniversal(deps.db, BATCH);
  for (const documentId of owed) {
    await deps.db.transaction().execute(async (trx) => {
      await markUniversalPending(trx, documentId);
      await addUniversalBuildJob(trx, { documentId });
    });
  }
  const renewals = await renewalsWithoutJob(deps.db, BATCH);
  for (const r of renewals) {
    await deps.db.transaction().execute((trx) => addUniversalRenewJob(trx, { documentId: r.id }, r.renewAt));
  }
  return { builds: owed.length, renewals: renewals.length };
}
