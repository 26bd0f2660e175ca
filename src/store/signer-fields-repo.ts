// SQL for the fields signers fill (signer_fields, migration 0042): a signer's fields in the order
// they were sent, a document's with whose they are, and the values a signature recorded.
import type { Selectable, Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, SignerFieldsTable } from './schema.js';

type Q = Db | Transaction<Database>;

export type SignerFieldRow = Selectable<SignerFieldsTable>;

/** The fields a signer fills, in the order of the create payload. */
export function fieldsOfSigner(q: Q, signerRowId: string): Promise<SignerFieldRow[]> {
  return q.selectFrom('signer_fields').selectAll().where('signer_row_id', '=', signerRowId).orderBy('field_index').execute();
}

/** A document's fields, each with the public id of the signer who fills it. */
export function fieldsOfDocument(q: Q, documentId: string): Promise<(SignerFieldRow & { signer_id: string })[]> {
  return q
    .selectFrom('signer_fields as f')
    .innerJoin('signers as s', 's.id', 'f.signer_row_id')
    .selectAll('f')
    .select('s.signer_id')
    .where('f.document_id', '=', documentId)
    .orderBy('f.field_index')
    .execute();
}

/** The values one signature wrote (null: left empty), in the signature's transaction. */
export async function recordFieldValues(
  trx: Transaction<Database>,
  signerRowId: string,
  values: { fieldId: string; value: string | boolean | null }[],
  at: Date,
): Promise<void> {
  for (const v of values) {
    await trx
      .updateTable('signer_fields')
      .set({ value: v.value === null ? null : JSON.stringify(v.value), filled_at: at })
      .where('field_id', '=', v.fieldId)
      .where('signer_row_id', '=', signerRowId)
      .execute();
  }
}
