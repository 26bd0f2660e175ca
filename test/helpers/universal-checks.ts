// Checks shared by the universal rendition tests: what the database recorded about a document's
// universal rendition, its jobs, and everything a B-LTA file must satisfy, judged from the file alone.
import { sql } from 'kysely';
import { expect } from 'vitest';
import { readSignedFields } from '../../src/pdf/signed-fields.js';
import type { TestServer } from './server.js';
import { opensslLtaCheck } from './universal.js';
import { pdfsig, qpdfCheckAsync } from './validators.js';

export async function history(server: TestServer, ticket: string) {
  const r = await sql<{ action: string; details: Record<string, unknown> }>`select h.action, h.details from document_history h
    join documents d on d.id = h.document_id where d.ticket = ${ticket} order by h.seq`.execute(server.deps.db);
  return r.rows;
}

export async function notifications(server: TestServer, ticket: string, kind: string) {
  const r = await sql<{ meta: Record<string, unknown> }>`select n.meta from notifications n join documents d on d.id = n.document_id
    where d.ticket = ${ticket} and n.kind = ${kind}`.execute(server.deps.db);
  return r.rows.map((x) => x.meta);
}

export async function revisions(server: TestServer, ticket: string) {
  const r = await sql<{ seq: number; kind: string; sha256: string }>`select u.seq, u.kind, u.sha256 from universal_revisions u
    join documents d on d.id = u.document_id where d.ticket = ${ticket} order by u.seq`.execute(server.deps.db);
  return r.rows;
}

/** Jobs of the universal tasks still in the queue (waiting or failed and waiting for a retry). */
export async function queued(server: TestServer, task: string) {
  const r = await sql<{ key: string | null; attempts: number; last_error: string | null }>`select j.key, j.attempts, j.last_error
    from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
    where t.identifier = ${task}`.execute(server.deps.db);
  return r.rows;
}

/** A failed job waits for its backoff; make it due now, as the runner would later. */
export async function retryNow(server: TestServer) {
  await sql`update graphile_worker._private_jobs set run_at = now() where locked_at is null`.execute(server.deps.db);
}

/** Everything the file must satisfy to be the B-LTA rendition of `original`, checked independently. */
export async function expectLta(universal: Buffer, original: Buffer, root: string, signatures: number, at?: Date) {
  expect(universal.subarray(0, original.length).equals(original)).toBe(true);
  // With `at` (the service gone), pdfsig cannot make its own online OCSP check: it is told not to.
  const report = await pdfsig(universal, root, { noOcsp: at !== undefined });
  const sigs = report.signatures.filter((x) => x.type === 'ETSI.CAdES.detached');
  expect(sigs, report.output).toHaveLength(signatures);
  for (const sig of sigs) {
    expect(sig.valid, sig.block).toBe(true);
    expect(sig.trusted, sig.block).toBe(true);
  }
  const check = await qpdfCheckAsync(universal);
  expect(check.output).toMatch(/No syntax or stream encoding errors found/);
  const lta = await opensslLtaCheck(universal, root, { at });
  expect(lta.tsVerify).toMatch(/Verification: OK/);
  expect(lta.ocsp.length).toBeGreaterThan(0);
  for (const o of lta.ocsp) {
    expect(o.status, o.text).toBe('good');
    expect(o.text).toMatch(/Response verify OK/);
  }
  expect(lta.crlVerify.length).toBeGreaterThan(0);
  for (const c of lta.crlVerify) {
    expect(c).toBe('verify OK');
  }
  const fields = await readSignedFields(universal);
  const stamps = fields.filter((f) => f.kind === 'document_timestamp');
  expect(stamps.length).toBeGreaterThan(0);
  // The last revision is the DSS of the last time stamp: nothing but validation data follows it.
  expect(stamps[stamps.length - 1].coveredLength).toBeLessThan(universal.length);
  return { report, lta, fields };
}
