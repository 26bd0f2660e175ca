// The retention of deleted documents (decisions.md "States"): unset SELLO_DELETED_RETENTION_DAYS, a
// deleted document stays restorable for good; set, documents deleted longer ago are purged. One
// transaction per document appends a `purged` entry to its history (chained on the head, so it seals
// the chain as it stood), keeps that entry as the document's tombstone, and removes the document
// and every row about it; from then on every operation on its ticket answers 404 like an unknown
// one. Its blobs are deleted after the commit, each only if no other row names it (the same bytes
// may belong to another document or a template) and under the blob's lock
// (delete-unreferenced-blob.ts). A crash between the two leaves unreferenced blobs, which the
// orphan sweep removes. Run daily by the purge_deleted_documents job; running it twice is harmless.
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { deletedBefore, documentBlobKeys, lockPurgeable, replaceWithTombstone } from '../../store/purge-repo.js';
import { deleteIfUnreferenced } from './delete-unreferenced-blob.js';

export interface Purge {
  /** Documents purged. */
  documents: number;
  /** Blobs deleted with them (bytes still named by another row are kept). */
  blobs: number;
}

const BATCH = 100;

export async function purgeDeletedDocuments(deps: Pick<Deps, 'db' | 'blobs' | 'clock' | 'config'>): Promise<Purge> {
  const days = deps.config.lifecycle.deletedRetentionDays;
  const out: Purge = { documents: 0, blobs: 0 };
  if (days === undefined) {
    return out;
  }
  const now = deps.clock.now();
  const before = new Date(now.getTime() - days * 86_400_000);
  for (;;) {
    const ids = await deletedBefore(deps.db, before, BATCH);
    for (const id of ids) {
      const keys = await purgeOne(deps, id, { before, now, days });
      out.documents += keys === undefined ? 0 : 1;
      for (const key of keys ?? []) {
        out.blobs += (await deleteIfUnreferenced(deps, key)) ? 1 : 0;
      }
    }
    if (ids.length < BATCH) {
      return out;
    }
  }
}

/** The blob keys the purged document's rows named; undefined when it was restored meanwhile. */
async function purgeOne(deps: Pick<Deps, 'db'>, id: string, o: { before: Date; now: Date; days: number }): Promise<string[] | undefined> {
  return deps.db.transaction().execute(async (trx) => {
    const doc = await lockPurgeable(trx, id, o.before);
    if (!doc?.deleted_at) {
      return undefined;
    }
    const keys = await documentBlobKeys(trx, id);
    await appendHistory(trx, {
      documentId: id,
      at: o.now,
      action: 'purged',
      actor: 'system',
      details: { deleted_at: doc.deleted_at.toISOString(), retention_days: o.days },
    });
    await replaceWithTombstone(trx, id, {
      ticket: doc.ticket,
      accountId: String(doc.account_id),
      createdAt: doc.created_at,
      deletedAt: doc.deleted_at,
    });
    return keys;
  });
}
