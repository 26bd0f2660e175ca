// Prepared SAT e.firma signatures (migration 0017): what the first request made, waiting for the
// signer's signature value. Raw SQL as in signing-repo.ts.
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';

export interface SatPreparation {
  id: string;
  signer_row_id: string;
  document_id: string;
  base_sha256: string;
  prepared_sha256: string;
  byte_range: number[];
  contents_start: number;
  contents_end: number;
  signed_attributes: Buffer;
  certificate: Buffer;
  chain_pem: string;
  rfc: string;
  certificate_number: string;
  ocsp_status: 'good' | 'unknown';
  /** The SAT responder's answer (DER) when it gave one. */
  ocsp_response: Buffer | null;
  signed_at: Date;
  language: 'es' | 'en';
  expires_at: Date;
  finished_at: Date | null;
}

export type NewSatPreparation = Omit<SatPreparation, 'id' | 'finished_at'> & { created_at: Date };

export async function insertPreparation(trx: Transaction<Database>, p: NewSatPreparation): Promise<string> {
  const { rows } = await sql<{ id: string }>`insert into sat_preparations (signer_row_id, document_id, base_sha256, prepared_sha256,
      byte_range, contents_start, contents_end, signed_attributes, certificate, chain_pem, rfc, certificate_number, ocsp_status,
      ocsp_response, signed_at, language, created_at, expires_at)
    values (${p.signer_row_id}, ${p.document_id}, ${p.base_sha256}, ${p.prepared_sha256}, ${p.byte_range}, ${p.contents_start},
      ${p.contents_end}, ${p.signed_attributes}, ${p.certificate}, ${p.chain_pem}, ${p.rfc}, ${p.certificate_number},
      ${p.ocsp_status}, ${p.ocsp_response}, ${p.signed_at}, ${p.language}, ${p.created_at}, ${p.expires_at})
    returning id::text as id`.execute(trx);
  return rows[0].id;
}

/** The preparation `id` of this signer, locked for the finish; undefined for any other signer's. */
export async function lockPreparation(trx: Transaction<Database>, id: string, signerRowId: string): Promise<SatPreparation | undefined> {
  const { rows } = await sql<SatPreparation>`select id::text as id, signer_row_id::text as signer_row_id,
      document_id::text as document_id, base_sha256, prepared_sha256, byte_range, contents_start, contents_end, signed_attributes,
      certificate, chain_pem, rfc, certificate_number, ocsp_status, signed_at, language, expires_at, finished_at
    from sat_preparations where id = ${id}::uuid and signer_row_id = ${signerRowId} for update`.execute(trx);
  return rows[0];
}

export async function markPreparationFinished(trx: Transaction<Database>, id: string, at: Date): Promise<void> {
  await sql`update sat_preparations set finished_at = ${at} where id = ${id}::uuid`.execute(trx);
}

/** Preparations past their expiry are of no use: dropped when the same signer prepares again. */
export async function dropExpiredPreparations(trx: Transaction<Database>, signerRowId: string, now: Date): Promise<void> {
  await sql`delete from sat_preparations where signer_row_id = ${signerRowId} and expires_at < ${now} and finished_at is null`.execute(trx);
}

/** Preparations of this signer still waiting for a signature value. */
export async function countOpenPreparations(trx: Transaction<Database>, signerRowId: string, now: Date): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from sat_preparations
    where signer_row_id = ${signerRowId} and finished_at is null and expires_at >= ${now}`.execute(trx);
  return rows[0].n;
}

/** The SAT responders' answers kept for the signatures of a document (finished preparations). */
export async function satOcspResponsesOf(db: Kysely<Database>, documentId: string): Promise<Buffer[]> {
  const { rows } = await sql<{ ocsp_response: Buffer }>`select ocsp_response from sat_preparations
    where document_id = ${documentId} and finished_at is not null and ocsp_response is not null`.execute(db);
  return rows.map((r) => r.ocsp_response);
}
