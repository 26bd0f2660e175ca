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

/** The row's jsonb read back as the material it holds. */
function material(row: { source: string; sealed: unknown } | undefined): { source: string; sealed: SealedPkiMaterial } | undefined {
  return row && { source: row.source, sealed: row.sealed as SealedPkiMaterial };
}

export async function loadPkiMaterial(db: Db): Promise<{ source: string; sealed: SealedPkiMaterial } | undefined> {
  return material(await db.selectFrom('pki_material').select(['source', 'sealed']).where('id', '=', 1).executeTakeFirst());
}

/** Stores the material unless another process stored some first; returns the stored one. */
export async function storePkiMaterial(db: Db, source: 'generated' | 'operator', sealed: SealedPkiMaterial) {
  await db
    .insertInto('pki_material')
    .values({ id: 1, source, sealed: JSON.stringify(sealed) })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return (await loadPkiMaterial(db))!;
}

/** Replaces the material (an operator switching to their own CA). */
export async function replacePkiMaterial(db: Db, source: 'generated' | 'operator', sealed: SealedPkiMaterial) {
  await db
    .insertInto('pki_material')
    .values({ id: 1, source, sealed: JSON.stringify(sealed) })
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet((eb) => ({ source: eb.ref('excluded.source'), sealed: eb.ref('excluded.sealed'), created_at: sql`now()` })),
    )
    .execute();
}

/**
 * The material row, locked until the caller's transaction ends: of several processes renewing a
 * certificate in it at once, one does and the others then read its result.
 */
export async function lockPkiMaterial(trx: Transaction<Database>): Promise<{ source: string; sealed: SealedPkiMaterial } | undefined> {
  return material(await trx.selectFrom('pki_material').select(['source', 'sealed']).where('id', '=', 1).forUpdate().executeTakeFirst());
}

/** Replaces the sealed material in place, keeping its source (a renewed certificate in it). */
export async function updatePkiMaterial(trx: Transaction<Database>, sealed: SealedPkiMaterial): Promise<void> {
  await trx
    .updateTable('pki_material')
    .set({ sealed: JSON.stringify(sealed) })
    .where('id', '=', 1)
    .execute();
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
  await db
    .insertInto('issued_certificates')
    .values({
      serial_hex: c.serialHex,
      kind: c.kind,
      subject: c.subject,
      document_id: c.documentId ?? null,
      signer_row_id: c.signerRowId ?? null,
      not_before: c.notBefore,
      not_after: c.notAfter,
    })
    .onConflict((oc) => oc.column('serial_hex').doNothing())
    .execute();
}

export async function certificateStatus(db: Db, serialHex: string): Promise<{ revokedAt: Date | null; reason: number | null } | undefined> {
  const row = await db
    .selectFrom('issued_certificates')
    .select(['revoked_at', 'revocation_reason'])
    .where('serial_hex', '=', serialHex)
    .executeTakeFirst();
  return row ? { revokedAt: row.revoked_at, reason: row.revocation_reason } : undefined;
}

export async function revokedCertificates(db: Db): Promise<{ serialHex: string; revokedAt: Date; reason?: number }[]> {
  const rows = await db
    .selectFrom('issued_certificates')
    .select(['serial_hex', 'revoked_at', 'revocation_reason'])
    .where('revoked_at', 'is not', null)
    .where('not_after', '>', sql<Date>`now() - interval '1 day'`)
    .orderBy('revoked_at')
    .$narrowType<{ revoked_at: Date }>()
    .execute();
  return rows.map((x) => ({ serialHex: x.serial_hex, revokedAt: x.revoked_at, reason: x.revocation_reason ?? undefined }));
}

export async function revokeCertificate(db: Db, serialHex: string, at: Date, reason: number): Promise<boolean> {
  const r = await db
    .updateTable('issued_certificates')
    .set({ revoked_at: at, revocation_reason: reason })
    .where('serial_hex', '=', serialHex)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function nextCrlNumber(db: Db, issuer: 'issuing' | 'root'): Promise<bigint> {
  // Sequences are not tables: nextval is said in SQL.
  const seq = issuer === 'root' ? sql.raw('crl_number_root') : sql.raw('crl_number_issuing');
  const r = await sql<{ n: string }>`select nextval('${seq}') as n`.execute(db);
  return BigInt(r.rows[0].n);
}
