// Task `purge_deleted_documents` (daily, from the cron list in index.ts; payload: jobs/payloads/):
// purges documents deleted longer ago than the retention (domain/lifecycle/purge-deleted-documents.ts).
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { purgeDeletedDocuments } from '../domain/lifecycle/purge-deleted-documents.js';
import { payloadTask } from './job-payload.js';
import { PURGE_DELETED_DOCUMENTS } from './payloads/purge-deleted-documents.js';

export function purgeDeletedDocumentsTask(deps: Deps): Task {
  return payloadTask(PURGE_DELETED_DOCUMENTS, async (_p, helpers) => {
    const n = await purgeDeletedDocuments(deps);
    if (n.documents > 0) {
      helpers.logger.info(`purge_deleted_documents: purged ${n.documents} documents deleted past the retention, ${n.blobs} blobs removed`);
    }
  });
}
