// The universal rendition (PAdES B-LTA) of a completed document: built by a job after completion,
// served at GET /api/document/universal/{ticket}, renewed, made once per document under load, and
// retried after a failure; each file judged from itself alone by pdfsig (every signature), qpdf and
// openssl (test/helpers/universal-checks.ts).
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepUniversal } from '../../src/domain/universal/sweep-universal.js';
import { readSignedFields } from '../../src/pdf/signed-fields.js';
import { apiError } from '../helpers/api-error.js';
import { HOUR, movableClock, releaseScheduledJobs } from '../helpers/flow-clock.js';
import { type JobRunner, jobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { opensslTsVerify } from '../helpers/openssl-ts.js';
import { documentTimestamps, dssOf, signedDocument } from '../helpers/universal.js';
import { derToPem } from '../../src/pki/index.js';
import { expectLta, history, notifications, queued, retryNow, revisions } from '../helpers/universal-checks.js';

let s: TestServer;
let jobs: JobRunner;
let rootPem: string;
let pdf: string;
const clock = movableClock();

beforeAll(async () => {
  s = await startTestServer({ clock });
  jobs = jobRunner(s.connectionString, s.deps);
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  pdf = (await makePdf([A4, A4])).toString('base64');
});
afterAll(async () => {
  await jobs?.close();
  await s?.close();
});

/** The universal rendition's state as the document listing (GET /api/document) shows it. */
async function listedUniversal(ticket: string) {
  const { documents } = await s.client.listDocuments({ limit: 500 });
  return documents.find((d) => d.document_ticket === ticket)?.universal_rendition;
}

describe('universal rendition', () => {
  it('is built once after completion: a DSS, a document time stamp, a DSS; every signature still valid; served and announced', async () => {
    const ticket = await signedDocument(s, pdf);
    const early = await apiError(s.client.downloadDocument('universal', ticket));
    expect([early.status, early.code]).toEqual([409, 'NOT_YET_AVAILABLE']);
    expect(early.details).toMatchObject({ status: 'completed', universal_status: 'pending' });
    expect(await queued(s, 'universal_build')).toHaveLength(1);
    await jobs.runDue();

    const original = (await s.client.downloadDocument('original', ticket)).bytes;
    const file = await s.client.downloadDocument('universal', ticket);
    const universal = file.bytes;
    const { report, fields } = await expectLta(universal, original, rootPem, 2);
    expect(file.hash).toBe((await revisions(s, ticket))[0].sha256);

    // The document time stamp: /Type /DocTimeStamp, /SubFilter /ETSI.RFC3161, from the service's TSA.
    const stamp = fields.find((f) => f.kind === 'document_timestamp')!;
    expect(stamp.subFilter).toBe('ETSI.RFC3161');
    expect(universal.toString('latin1')).toMatch(/\/Type\s*\/DocTimeStamp/);
    expect(report.output).toContain('Sello Test Time-Stamping Authority');

    // The DSS: every certificate of both paths and of the time stamps, an OCSP response per end
    // entity (two signers, the signature TSA; the document time stamp's TSA is the same
    // certificate), a CRL of each CA, and VRI entries for the signatures and the time stamp.
    const dss = await dssOf(universal);
    const pki = s.deps.pki.pki;
    const has = (der: Buffer) => dss.certs.some((c) => c.equals(der));
    for (const der of [pki.root.certificateDer, pki.issuing.certificateDer, pki.tsa.certificateDer, pki.ocsp.certificateDer]) {
      expect(has(der)).toBe(true);
    }
    expect(dss.ocsps).toHaveLength(3);
    expect(dss.crls).toHaveLength(2);
    expect(dss.vriKeys).toHaveLength(3);

    // The service's own verifier (POST /api/report) on the rendition: intact, no attack, both
    // signatures at B-LTA from the embedded data, the document time stamp itself at B-LT.
    const verified = await s.client.verifyPdf(universal);
    expect(verified).toMatchObject({ documentIntegrity: 'intact', attacks: [] });
    expect(verified.firmas.map((f) => [f.validSignature, f.modifiedAfterSigning, f.level, f.validationData])).toEqual([
      [true, false, 'B-LTA', 'embedded'],
      [true, false, 'B-LTA', 'embedded'],
      [true, false, 'B-LT', 'embedded'],
    ]);

    const actions = (await history(s, ticket)).map((h) => h.action);
    expect(actions.slice(-2)).toEqual(['completed', 'universal_signed']);
    const metas = await notifications(s, ticket, 'universal_signed');
    expect(metas).toHaveLength(1);
    expect(metas[0]).toMatchObject({ level: 'PAdES-B-LTA', timestamp: { tsa: 'Sello Test Time-Stamping Authority' } });
    expect(Date.parse((metas[0] as { timestamp: { time: string } }).timestamp.time)).not.toBeNaN();

    // Running the jobs again, or a stray second job for the document, changes nothing.
    await sql`select graphile_worker.add_job('universal_build', json_build_object('documentId', id::text)) from documents
      where ticket = ${ticket}`.execute(s.deps.db);
    await jobs.runDue();
    expect(await revisions(s, ticket)).toHaveLength(1);
    expect((await s.client.downloadDocument('universal', ticket)).bytes.equals(universal)).toBe(true);
    expect(await notifications(s, ticket, 'universal_signed')).toHaveLength(1);
  });

  it('is renewed before the time stamp certificate ends: a fresh DSS and document time stamp appended, recorded in the history', async () => {
    const ticket = await signedDocument(s, pdf, ['Carmen Ruiz']);
    await jobs.runDue();
    const first = (await s.client.downloadDocument('universal', ticket)).bytes;
    const [scheduled] = await queued(s, 'universal_renew');
    expect(scheduled).toBeDefined();
    const row = await s.deps.db
      .selectFrom('documents')
      .select(['universal_renew_at', 'universal_tsa_not_after'])
      .where('ticket', '=', ticket)
      .executeTakeFirstOrThrow();
    const margin = row.universal_tsa_not_after!.getTime() - row.universal_renew_at!.getTime();
    expect(margin).toBe(s.deps.config.ltaRenewMarginDays * 24 * HOUR);

    // Not due yet: nothing happens.
    await jobs.runDue();
    expect(await revisions(s, ticket)).toHaveLength(1);

    const saved = clock.now();
    clock.set(row.universal_renew_at!);
    try {
      expect(await releaseScheduledJobs(s.deps.db, clock, ['universal_renew'])).toBeGreaterThan(0);
      await jobs.runDue();
      clock.set(saved); // pdfsig asks the service's OCSP responder itself: an answer from 2031 would be refused
      const renewed = (await s.client.downloadDocument('universal', ticket)).bytes;
      await expectLta(renewed, first, rootPem, 1);
      const stamps = (await readSignedFields(renewed)).filter((f) => f.kind === 'document_timestamp');
      expect(stamps.map((f) => f.fieldName)).toEqual(['Sello-Archive-1', 'Sello-Archive-2']);
      // Every archive time stamp, not only the last: openssl verifies each token over the bytes its
      // /ByteRange covers, against the root, with the DSS's certificates to complete the path.
      const dssPem = (await dssOf(renewed)).certs.map((c) => derToPem(c, 'CERTIFICATE')).join('');
      const archives = await documentTimestamps(renewed);
      expect(archives.map((a) => a.fieldName)).toEqual(['Sello-Archive-1', 'Sello-Archive-2']);
      for (const a of archives) {
        const v = await opensslTsVerify(a.token, { data: a.covered }, rootPem, { untrustedPem: dssPem });
        expect(v.output, a.fieldName).toMatch(/^Verification: OK$/m);
      }
      // The first still covers exactly what it covered in the first rendition; a token does not pass
      // over another's bytes.
      expect((await documentTimestamps(first))[0].covered.equals(archives[0].covered)).toBe(true);
      expect((await opensslTsVerify(archives[0].token, { data: archives[1].covered }, rootPem, { untrustedPem: dssPem })).ok).toBe(false);
      expect((await revisions(s, ticket)).map((r) => r.kind)).toEqual(['initial', 'renewal']);
      const renewal = (await history(s, ticket)).find((h) => h.action === 'universal_renewed')!;
      expect(renewal.details).toMatchObject({ level: 'PAdES-B-LTA', revision: 2 });
      expect(await notifications(s, ticket, 'universal_signed')).toHaveLength(1);
    } finally {
      clock.set(saved);
    }
  });

  it('completing ten documents at once makes each universal rendition exactly once', async () => {
    const tickets = await Promise.all(Array.from({ length: 10 }, (_, i) => signedDocument(s, pdf, [`Firmante ${i}`])));
    const keys = (await queued(s, 'universal_build')).map((j) => j.key);
    for (const t of tickets) {
      const id = (await s.deps.db.selectFrom('documents').select('id').where('ticket', '=', t).executeTakeFirstOrThrow()).id;
      expect(keys.filter((k) => k === `universal:${id}`)).toHaveLength(1);
    }
    await Promise.all([jobs.runDue(), jobs.runDue()]);
    await jobs.runDue();
    const hashes = new Set<string>();
    for (const t of tickets) {
      const revs = await revisions(s, t);
      expect(revs).toHaveLength(1);
      hashes.add(revs[0].sha256);
      expect(await s.deps.blobs.has(revs[0].sha256)).toBe(true);
      expect(await notifications(s, t, 'universal_signed')).toHaveLength(1);
      expect((await history(s, t)).filter((h) => h.action === 'universal_signed')).toHaveLength(1);
    }
    expect(hashes.size).toBe(10);
    expect(await queued(s, 'universal_build')).toHaveLength(0);
    // No blob without a row: no run stored a rendition that was then dropped.
    const referenced = await sql<{ sha256: string }>`select source_sha256 as sha256 from documents
      union select sha256 from document_revisions union select sha256 from universal_revisions`.execute(s.deps.db);
    const stored = (await readdir(join(s.dataDir, 'blobs'), { recursive: true }))
      .map((f) => basename(f))
      .filter((f) => /^[0-9a-f]{64}$/.test(f));
    expect(new Set(stored)).toEqual(new Set(referenced.rows.map((r) => r.sha256)));
    const one = (await s.client.downloadDocument('universal', tickets[3])).bytes;
    await expectLta(one, (await s.client.downloadDocument('original', tickets[3])).bytes, rootPem, 1);
  });

  it('when the OCSP responder fails: no rendition, the reason in the status and the history (once), retried, built later', async () => {
    const ocsp = s.deps.pki.ocsp;
    s.deps.pki.ocsp = async () => {
      throw new Error('responder unavailable');
    };
    let ticket: string;
    try {
      ticket = await signedDocument(s, pdf, ['Diego Luna']);
      await jobs.runDue();
      const failed = await apiError(s.client.downloadDocument('universal', ticket));
      expect([failed.status, failed.code]).toEqual([409, 'NOT_YET_AVAILABLE']);
      // Retried: still pending, with the reason of the attempt that failed.
      expect(failed.details).toMatchObject({ universal_status: 'pending' });
      expect(failed.message).toMatch(/could not be built yet \(it is retried\)/);
      expect(String((failed.details as { reason: string }).reason)).toMatch(/OCSP for .*Diego Luna.*responder unavailable/);
      expect(await listedUniversal(ticket)).toEqual({ status: 'pending', reason: (failed.details as { reason: string }).reason });
      const [job] = await queued(s, 'universal_build');
      expect(job.attempts).toBe(1);
      expect(job.last_error).toMatch(/responder unavailable/);
      await retryNow(s);
      await jobs.runDue();
      expect((await queued(s, 'universal_build'))[0].attempts).toBe(2);
      const failures = (await history(s, ticket)).filter((h) => h.action === 'universal_failed');
      expect(failures).toHaveLength(1);
      expect(failures[0].details).toMatchObject({ attempt: 1, max_attempts: 25 });
      expect(await notifications(s, ticket, 'universal_signed')).toHaveLength(0);
    } finally {
      s.deps.pki.ocsp = ocsp;
    }
    await retryNow(s);
    await jobs.runDue();
    const universal = (await s.client.downloadDocument('universal', ticket)).bytes;
    await expectLta(universal, (await s.client.downloadDocument('original', ticket)).bytes, rootPem, 1);
    const row = await s.deps.db
      .selectFrom('documents')
      .select(['universal_status', 'universal_error'])
      .where('ticket', '=', ticket)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ universal_status: 'ready', universal_error: null });
    expect((await history(s, ticket)).map((h) => h.action).slice(-2)).toEqual(['universal_failed', 'universal_signed']);
    expect(await notifications(s, ticket, 'universal_signed')).toHaveLength(1);
    expect(await listedUniversal(ticket)).toEqual({ status: 'ready' });
  });

  it('a build that fails for good: failed with the reason in the listing and the download, a final history entry, no more retries', async () => {
    const ocsp = s.deps.pki.ocsp;
    s.deps.pki.ocsp = async () => {
      throw new Error('responder unavailable');
    };
    try {
      const ticket = await signedDocument(s, pdf, ['Irene Vega']);
      expect(await listedUniversal(ticket)).toEqual({ status: 'pending' });
      // Its first attempt fails with one reason, its last (the 25th) with the same one.
      await jobs.runDue();
      expect(await listedUniversal(ticket)).toMatchObject({ status: 'pending' });
      await sql`update graphile_worker._private_jobs j set attempts = j.max_attempts - 1, run_at = now()
        from documents d where d.ticket = ${ticket} and j.key = 'universal:' || d.id::text`.execute(s.deps.db);
      await jobs.runDue();

      const listed = await listedUniversal(ticket);
      expect(listed).toEqual({ status: 'failed', reason: expect.stringMatching(/OCSP for .*Irene Vega.*responder unavailable/) });
      const err = await apiError(s.client.downloadDocument('universal', ticket));
      expect([err.status, err.code]).toEqual([409, 'NOT_YET_AVAILABLE']);
      expect(err.details).toEqual({ status: 'completed', universal_status: 'failed', reason: listed?.reason });
      expect(err.message).toMatch(/no longer retried/);
      const failures = (await history(s, ticket)).filter((h) => h.action === 'universal_failed');
      expect(failures.map((f) => f.details)).toEqual([
        { reason: listed?.reason, attempt: 1, max_attempts: 25 },
        { reason: listed?.reason, attempt: 25, max_attempts: 25, final: true },
      ]);
      // The job stays in the queue for the operator; the runner does not take it again.
      const [job] = (await queued(s, 'universal_build')).filter((j) => j.attempts === 25);
      expect(job).toBeDefined();
      await sql`update graphile_worker._private_jobs set run_at = now() where attempts >= max_attempts`.execute(s.deps.db);
      await jobs.runDue();
      expect((await history(s, ticket)).filter((h) => h.action === 'universal_failed')).toHaveLength(2);
      expect(await revisions(s, ticket)).toHaveLength(0);
    } finally {
      s.deps.pki.ocsp = ocsp;
    }
  });

  it('a renewal that fails: universal_renewal_failed in the history; the previous rendition is still served, ready, and verifies', async () => {
    const ticket = await signedDocument(s, pdf, ['Julia Mar']);
    await jobs.runDue();
    const first = await s.client.downloadDocument('universal', ticket);
    const row = await s.deps.db
      .selectFrom('documents')
      .select(['universal_renew_at'])
      .where('ticket', '=', ticket)
      .executeTakeFirstOrThrow();
    const saved = clock.now();
    const ocsp = s.deps.pki.ocsp;
    clock.set(row.universal_renew_at!);
    try {
      s.deps.pki.ocsp = async () => {
        throw new Error('responder unavailable');
      };
      expect(await releaseScheduledJobs(s.deps.db, clock, ['universal_renew'])).toBeGreaterThan(0);
      await jobs.runDue();
    } finally {
      s.deps.pki.ocsp = ocsp;
      clock.set(saved);
    }
    const failed = (await history(s, ticket)).filter((h) => h.action === 'universal_renewal_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].details).toMatchObject({
      attempt: 1,
      max_attempts: 25,
      reason: expect.stringMatching(/OCSP for .*Time-Stamping Authority.*responder unavailable/),
    });
    expect((await history(s, ticket)).some((h) => h.action === 'universal_renewed')).toBe(false);
    expect(await revisions(s, ticket)).toHaveLength(1);
    // Served as before, byte for byte, and still a valid B-LTA file; the listing says ready, and why the renewal failed.
    const served = await s.client.downloadDocument('universal', ticket);
    expect(served.hash).toBe(first.hash);
    expect(served.bytes.equals(first.bytes)).toBe(true);
    await expectLta(served.bytes, (await s.client.downloadDocument('original', ticket)).bytes, rootPem, 1);
    const verified = await s.client.verifyPdf(served.bytes);
    expect(verified.firmas.map((f) => [f.validSignature, f.level])).toEqual([
      [true, 'B-LTA'],
      [true, 'B-LT'],
    ]);
    expect(await listedUniversal(ticket)).toEqual({ status: 'ready', reason: failed[0].details.reason });
    // The renewal job is still queued for its retry.
    expect((await queued(s, 'universal_renew')).some((j) => j.attempts === 1 && /responder unavailable/.test(j.last_error ?? ''))).toBe(
      true,
    );
  });

  it('the daily sweep queues the rendition of a document completed without one (before this version), and a lost renewal', async () => {
    const ticket = await signedDocument(s, pdf, ['Gabriela Paz']);
    // As an upgrade finds it: completed, no universal state, no job.
    await sql`delete from graphile_worker._private_jobs j using documents d where d.ticket = ${ticket}
      and j.key = 'universal:' || d.id::text`.execute(s.deps.db);
    await sql`update documents set universal_status = null where ticket = ${ticket}`.execute(s.deps.db);
    const missing = await apiError(s.client.downloadDocument('universal', ticket));
    expect(missing.details).toMatchObject({ universal_status: null });
    expect(await sweepUniversal(s.deps)).toMatchObject({ builds: 1 });
    expect(await sweepUniversal(s.deps)).toMatchObject({ builds: 0 });
    await jobs.runDue();
    expect(await revisions(s, ticket)).toHaveLength(1);
    // Its renewal job removed by hand: the sweep schedules it again, at the recorded time.
    await sql`delete from graphile_worker._private_jobs j using documents d where d.ticket = ${ticket}
      and j.key = 'universal-renew:' || d.id::text`.execute(s.deps.db);
    expect(await sweepUniversal(s.deps)).toEqual({ builds: 0, renewals: 1 });
    const renew = (await queued(s, 'universal_renew')).length;
    expect(await sweepUniversal(s.deps)).toEqual({ builds: 0, renewals: 0 });
    expect((await queued(s, 'universal_renew')).length).toBe(renew);
  });
});
