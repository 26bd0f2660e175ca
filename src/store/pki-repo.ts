// SQL for the PKI: the material row and the register of issued certificates.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database } from './schema.js';
import type { SealedPkiMaterial } from '../pki/sealed-material.js';

// Arbitrary constant naming this lock in pg_locks: only one process generates the PKI.
const PKI_LOCK = 715_300_002;

/**
 * Runs `work` while this process holds the PKI's advisory lock, so that processes starting together
 * against an empty database generate one PKI, not one each. The lock is a session lock held on a
 * connection of its own; `work` uses the pool as usual.
 */
export async function withPkiLock<T>(db: Db, work: () => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${PKI_LOCK})`.execute(conn);
    try {
      return await work();
    } finally {
      await sql`select pg_advisory_unlock(${PKI_LOCK})`.execute(conn);
    }
  });
}

export async function loadPkiMaterial(db: Db): Promise<{ source: string; sealed: SealedPkiMaterial } | undefined> {
  const r = await sql<{ source: string; sealed: SealedPkiMaterial }>`select source, sealed from pki_material where id = 1`.execute(db);
  return r.rows[0];
}

/** Stores the material unless another process stored some first; returns the stored one. */
export async function storePkiMaterial(db: Db, source: 'generated' | 'operator', sealed: SealedPkiMaterial) {
  await sql`insert into pki_material (id, source, sealed) values (1, ${source}, ${JSON.stringify(sealed)}::jsonb)
            on conflict (id) do nothing`.execute(db);
  return (await loadPkiMaterial(db))!;
}

/** Replaces the material (an operator switching to their own CA). */
export async function replacePkiMaterial(db: Db, source: 'generated' | 'operator', sealed: SealedPkiMaterial) {
  await sql`insert into pki_material (id, source, sealed) values (1, ${source}, ${JSON.stringify(sealed)}::jsonb)
            on conflict (id) do update set source = excluded.source, sealed = excluded.sealed, created_at = now()`.execute(db);
}

/**
 * The material row, locked until the caller's transaction ends: of several processes renewing a
 * certificate in it at once, one does and the others then read its result.
 */
export async function lockPkiMaterial(trx: Transaction<Database>): Promise<{ source: string; sealed: SealedPkiMaterial } | undefined> {
  const r = await sql<{
    source: string;
    sealed: SealedPkiMaterial;
  }>`select source, sealed from pki_material where id = 1 for update`.execute(trx);
  return r.rows[0];
}

/** Replaces the sealed material in place, keeping its source (a renewed certificate in it). */
export async function updatePkiMaterial(trx: Transaction<Database>, sealed: SealedPkiMaterial): Promise<void> {
  await sql`update pki_material set sealed = ${JSON.stringify(sealed)}::jsonb where id = 1`.execute(trx);
}

export interface IssuedCertificate {
  serialHex: string;
  /** seal: the service's own seal on a document it makes (the history as PDF). */
  kind: 'signer' | 'tsa' | 'ocsp' | 'seal';
  subject: string;
  documentId?: string | null;
  signerRowId?: string | null;
  notBefore: Date;
  notAfter: Date;
}

export async function recordIssuedCertificate(db: Db, c: IssuedCertificate): Promise<void> {
  await sql`insert into issued_certificates (serial_hex, kind, subject, document_id, signer_row_id, not_before, not_after)
            values (${c.serialHex}, ${c.kind}, ${c.subject}, ${c.documentId ?? null}, ${c.signerRowId ?? null}, ${c.notBefore}, ${c.notAfter})
            on conflict (serial_hex) do nothing`.execute(db);
}

export async function certificateStatus(db: Db, serialHex: string): Promise<{ revokedAt: Date | null; reason: number | null } | undefined> {
  const r = await sql<{ revoked_at: Date | null; revocation_reason: number | null }>`
    select revoked_at, revocation_reason from issued_certificates where serial_hex = ${serialHex}`.execute(db);
  const row = r.rows[0];
  return row ? { revokedAt: row.revoked_at, reason: row.revocation_reason } : undefined;
}

export async function revokedCertificates(db: Db): Promise<{ serialHex: string; revokedAt: Date; reason?: number }[]> {
  const r = await sql<{ serial_hex: string; revoked_at: Date; revocation_reason: number | null }>`
    select serial_hex, revoked_at, revocation_reason from issued_certificates
    where revoked_at is not null and not_after > now() - interval '1 day' order by revoked_at`.execute(db);
  return r.rows.map((x) => ({ serialHex: x.serial_hex, revokedAt: x.revoked_at, reason: x.revocation_reason ?? undefined }));
}

export async function revokeCertificate(db: Db, serialHex: string, at: Date, reason: number): Promise<boolean> {
  const r = await sql`update issued_certificates set revoked_at = ${at}, revocation_reason = ${reason}
                      where serial_hex = ${serialHex} and revoked_at is null`.execute(db);
  return Number(r.numAffectedRows ?? 0) === 1;
}

export async function nextCrlNumber(db: Db, issuer: 'issuing' | 'root'): Promise<bigint> {
  const seq = issuer === 'root' ? sql.raw('crl_number_root') : sql.raw('crl_number_issuing');
  const r = await sql<{ n: string }>`select nextval('${seq}') as n`.execute(db);
  return BigInt(r.rows[0].n);
}
