// Queues the NOM-151 stamp of a document's completed original, in the transaction that completes
// it (DESIGN.md, ways of the house 4): a document created with nom151 (or under an account that
// stamps by default) is never completed without its stamp being asked for.
import type { Transaction } from 'kysely';
import { addNom151StampJob } from '../../jobs/payloads/nom151-stamp.js';
import type { Database } from '../../store/schema.js';
import { stampableDocument } from '../../store/stamps-repo.js';

export async function queueCompletionStamp(trx: Transaction<Database>, documentId: string): Promise<void> {
  const doc = await stampableDocument(trx, documentId);
  if (doc?.nom151) {
    await addNom151StampJob(trx, { documentId, rendition: 'original' });
  }
}
