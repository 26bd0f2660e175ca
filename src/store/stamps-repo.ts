// The SQL of NOM-151 stamps (migrations/0014_nom151.sql): stamps of documents' renditions and of
// the API, the per-document switch and the account's default.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, StampSubject } from './schema.js';

type Q = Db | Transaction<Database>;

export interface StampRow {
  id: string;
  document_id: string | null;
  subject: StampSubject;
  covered_sha256: string;
  token: Buffer;
  provider: 'built_in' | 'psc';
  tsa_name: string;
  gen_time: Date;
  serial: string;
  created_at: Date;
}

export interface NewStamp {
  accountId: string;
  documentId: string | null;
  subject: StampSubject;
  coveredSha256: string;
  token: Buffer;
  provider: 'built_in' | 'psc';
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
  const r = await sql<{ id: string }>`
    insert into stamps (account_id, document_id, subject, covered_sha256, token, provider, tsa_name, gen_time, serial, created_at)
    values (${s.accountId}, ${s.documentId}, ${s.subject}, ${s.coveredSha256}, ${s.token}, ${s.provider}, ${s.tsaName},
            ${s.genTime}, ${s.serial}, ${s.at})
    on conflict (document_id, subject, covered_sha256) where document_id is not null do nothing
    returning id`.execute(q);
  return r.rows.length === 1;
}

const COLUMNS = sql`id, document_id, subject, covered_sha256, token, provider, tsa_name, gen_time, serial, created_at`;

export async function documentStamps(q: Q, documentId: string): Promise<StampRow[]> {
  const r = await sql<StampRow>`select ${COLUMNS} from stamps where document_id = ${documentId} order by created_at, id`.execute(q);
  return r.rows;
}

/** The stamp of these exact bytes of a document's rendition, if it has one. */
export async function documentStamp(q: Q, documentId: string, subject: StampSubject, coveredSha256: string): Promise<StampRow | undefined> {
  const r = await sql<StampRow>`select ${COLUMNS} from stamps
    where document_id = ${documentId} and subject = ${subject} and covered_sha256 = ${coveredSha256}`.execute(q);
  return r.rows[0];
}

/** What the stamping job needs of a document. */
export interface StampableDocument {
  id: string;
  ticket: string;
  account_id: string;
  status: string;
  nom151: boolean;
  original_sha256: string;
}

export async function stampableDocument(q: Q, documentId: string): Promise<StampableDocument | undefined> {
  const r = await sql<StampableDocument>`
    select id, ticket, account_id, status, nom151, original_sha256 from documents where id = ${documentId}`.execute(q);
  return r.rows[0];
}

/**
 * The blob key of the document's universal rendition (documents.universal_sha256, added with that
 * rendition), null while it is not built.
 */
export async function universalSha256(q: Q, documentId: string): Promise<string | null> {
  const r = await sql<{ universal_sha256: string | null }>`select universal_sha256 from documents where id = ${documentId}`.execute(q);
  return r.rows[0]?.universal_sha256 ?? null;
}

export async function accountNom151Default(q: Q, accountId: string): Promise<boolean> {
  const r = await sql<{ nom151_default: boolean }>`select nom151_default from accounts where id = ${accountId}`.execute(q);
  return r.rows[0]?.nom151_default ?? false;
}

/** Sets the account's default; false when no account has that web id. */
export async function setAccountNom151Default(q: Q, webId: string, on: boolean): Promise<boolean> {
  const r = await sql`update accounts set nom151_default = ${on} where web_id = ${webId}`.execute(q);
  return Number(r.numAffectedRows ?? 0) > 0;
}

export async function setDocumentNom151(trx: Transaction<Database>, documentId: string, on: boolean): Promise<void> {
  await sql`update documents set nom151 = ${on} where id = ${documentId}`.execute(trx);
}
