// The SQL of NOM-151 stamps (migrations/0014_nom151.sql): stamps of documents' renditions and of
// the API, the per-document switch and the account's default.
import type { Selectable, Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, DocumentsTable, StampsTable, StampSubject } from './schema.js';

type Q = Db | Transaction<Database>;

const COLUMNS = [
  'id',
  'document_id',
  'subject',
  'covered_sha256',
  'token',
  'provider',
  'tsa_name',
  'gen_time',
  'serial',
  'created_at',
] as const;

export type StampRow = Pick<Selectable<StampsTable>, (typeof COLUMNS)[number]>;

export interface NewStamp {
  accountId: string;
  documentId: string | null;
  subject: StampSubject;
  coveredSha256: string;
  token: Buffer;
  provider: StampRow['provider'];
  tsaName: string;
  genTime: Date;
  serial: string;
  at: Date;
}

/**
 * Stores a stamp. A document's rendition holds one: when it has one already (a retried job that
 * stamped in a run that failed later), nothing is stored and false is returned.
 */
export async function insertStamp(q: Q, s: NewStamp): Promise<boolean> {
  const r = await q
    .insertInto('stamps')
    .values({
      account_id: s.accountId,
      document_id: s.documentId,
      subject: s.subject,
      covered_sha256: s.coveredSha256,
      token: s.token,
      provider: s.provider,
      tsa_name: s.tsaName,
      gen_time: s.genTime,
      serial: s.serial,
      created_at: s.at,
    })
    .onConflict((oc) => oc.columns(['document_id', 'subject', 'covered_sha256']).where('document_id', 'is not', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  return r !== undefined;
}

export async function documentStamps(q: Q, documentId: string): Promise<StampRow[]> {
  return q.selectFrom('stamps').select(COLUMNS).where('document_id', '=', documentId).orderBy('created_at').orderBy('id').execute();
}

/** The stamp of these exact bytes of a document's rendition, if it has one. */
export async function documentStamp(q: Q, documentId: string, subject: StampSubject, coveredSha256: string): Promise<StampRow | undefined> {
  return q
    .selectFrom('stamps')
    .select(COLUMNS)
    .where('document_id', '=', documentId)
    .where('subject', '=', subject)
    .where('covered_sha256', '=', coveredSha256)
    .executeTakeFirst();
}

/** What the stamping job needs of a document. */
export type StampableDocument = Pick<Selectable<DocumentsTable>, 'id' | 'ticket' | 'account_id' | 'status' | 'nom151' | 'original_sha256'>;

export async function stampableDocument(q: Q, documentId: string): Promise<StampableDocument | undefined> {
  return q
    .selectFrom('documents')
    .select(['id', 'ticket', 'account_id', 'status', 'nom151', 'original_sha256'])
    .where('id', '=', documentId)
    .executeTakeFirst();
}

/**
 * The blob key of the document's universal rendition (documents.universal_sha256, added with that
 * rendition), null while it is not built.
 */
export async function universalSha256(q: Q, documentId: string): Promise<string | null> {
  const r = await q.selectFrom('documents').select('universal_sha256').where('id', '=', documentId).executeTakeFirst();
  return r?.universal_sha256 ?? null;
}

export async function accountNom151Default(q: Q, accountId: string): Promise<boolean> {
  const r = await q.selectFrom('accounts').select('nom151_default').where('id', '=', accountId).executeTakeFirst();
  return r?.nom151_default ?? false;
}

/** Sets the account's default; false when no account has that web id. */
export async function setAccountNom151Default(q: Q, webId: string, on: boolean): Promise<boolean> {
  const r = await q.updateTable('accounts').set({ nom151_default: on }).where('web_id', '=', webId).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function setDocumentNom151(trx: Transaction<Database>, documentId: string, on: boolean): Promise<void> {
  await trx.updateTable('documents').set({ nom151: on }).where('id', '=', documentId).execute();
}
