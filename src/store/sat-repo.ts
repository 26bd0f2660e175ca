// Prepared SAT e.firma signatures (migration 0017): what the first request made, waiting for the
// signer's signature value.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, SatPreparationsTable } from './schema.js';

/** A preparation (ocsp_response: the SAT responder's answer, DER, when it gave one); language is es or en. */
export type SatPreparation = Omit<Selectable<SatPreparationsTable>, 'created_at' | 'language'> & { language: 'es' | 'en' };

export type NewSatPreparation = Omit<SatPreparation, 'id' | 'finished_at' | 'field_values'> & {
  created_at: Date;
  /** JSON of the checked field values the prepared revision holds; null when the signer fills none. */
  field_values?: string | null;
};

export async function insertPreparation(trx: Transaction<Database>, p: NewSatPreparation): Promise<string> {
  const row = await trx.insertInto('sat_preparations').values(p).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** The preparation `id` of this signer, locked for the finish; undefined for any other signer's. */
export async function lockPreparation(trx: Transaction<Database>, id: string, signerRowId: string): Promise<SatPreparation | undefined> {
  const row = await trx
    .selectFrom('sat_preparations')
    .selectAll()
    .where('id', '=', id)
    .where('signer_row_id', '=', signerRowId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) {
    return undefined;
  }
  const { created_at: _, ...preparation } = row;
  return { ...preparation, language: row.language as SatPreparation['language'] };
}

export async function markPreparationFinished(trx: Transaction<Database>, id: string, at: Date): Promise<void> {
  await trx.updateTable('sat_preparations').set({ finished_at: at }).where('id', '=', id).execute();
}

/** Preparations past their expiry are of no use: dropped when the same signer prepares again. */
export async function dropExpiredPreparations(trx: Transaction<Database>, signerRowId: string, now: Date): Promise<void> {
  await trx
    .deleteFrom('sat_preparations')
    .where('signer_row_id', '=', signerRowId)
    .where('expires_at', '<', now)
    .where('finished_at', 'is', null)
    .execute();
}

/** Preparations of this signer still waiting for a signature value. */
export async function countOpenPreparations(trx: Transaction<Database>, signerRowId: string, now: Date): Promise<number> {
  const r = await trx
    .selectFrom('sat_preparations')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('signer_row_id', '=', signerRowId)
    .where('finished_at', 'is', null)
    .where('expires_at', '>=', now)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The SAT responders' answers kept for the signatures of a document (finished preparations). */
export async function satOcspResponsesOf(db: Kysely<Database>, documentId: string): Promise<Buffer[]> {
  const rows = await db
    .selectFrom('sat_preparations')
    .select('ocsp_response')
    .where('document_id', '=', documentId)
    .where('finished_at', 'is not', null)
    .where('ocsp_response', 'is not', null)
    .$narrowType<{ ocsp_response: Buffer }>()
    .execute();
  return rows.map((r) => r.ocsp_response);
}
