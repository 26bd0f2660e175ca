// The universal rendition (PAdES B-LTA) of a completed document: built by a job after completion,
// served at GET /api/document/universal/{ticket}, judged from the file alone by pdfsig (every
// signature), qpdf, and openssl (the document time stamp against the root, every embedded OCSP
// response, every CRL, certification paths with only the embedded data).
import { X509Certificate } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pemCertificates } from '../../src/pki/index.js';
import { readSignedFields } from '../../src/pdf/signed-fields.js';
import { apiError } from '../helpers/api-error.js';
import { HOUR, movableClock, releaseScheduledJobs } from '../helpers/flow-clock.js';
import { type JobRunner, jobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { dssOf, opensslLtaCheck, opensslVerifyFromDss, pdfsigShifted, signedDocument } from '../helpers/universal.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';

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

async function history(server: TestServer, ticket: string) {
  const r = await sql<{ action: string; details: Record<string, unknown> }>`select h.action, h.details from document_history h
    join documents d on d.id = h.document_id where d.ticket = ${ticket} order by h.seq`.execute(server.deps.db);
  return r.rows;
}

async function notifications(server: TestServer, ticket: string, kind: string) {
  const r = await sql<{ meta: Record<string, unknown> }>`select n.meta from notifications n join documents d on d.id = n.document_id
    where d.ticket = ${ticket} and n.kind = ${kind}`.execute(server.deps.db);
  return r.rows.map((x) => x.meta);
}

async function revisions(server: TestServer, ticket: string) {
  const r = await sql<{ seq: number; kind: string; sha256: string }>`select u.seq, u.kind, u.sha256 from universal_revisions u
    join documents d on d.id = u.document_id where d.ticket = ${ticket} order by u.seq`.execute(server.deps.db);
  return r.rows;
}

/** Jobs of the universal tasks still in the queue (waiting or failed and waiting for a retry). */
async function queued(server: TestServer, task: string) {
  const r = await sql<{ key: string | null; attempts: number; last_error: string | null }>`select j.key, j.attempts, j.last_error
    from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
    where t.identifier = ${task}`.execute(server.deps.db);
  return r.rows;
}

/** A failed job waits for its backoff; make it due now, as the runner would later. */
async function retryNow(server: TestServer) {
  await sql`update graphile_worker._private_jobs set run_at = now() where locked_at is null`.execute(server.deps.db);
}

/** Everything the file must satisfy to be the B-LTA rendition of `original`, checked independently. */
async function expectLta(universal: Buffer, original: Buffer, root: string, signatures: number, at?: Date) {
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
      expect(failed.details).toMatchObject({ universal_status: 'failed' });
      expect(String((failed.details as { reason: string }).reason)).toMatch(/OCSP for .*Diego Luna.*responder unavailable/);
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
  });
});

describe('universal rendition validated offline, after the signer certificates ended', () => {
  it('built with the clock past the signer certificates; checks out with the OCSP and CRL endpoints gone', async () => {
    const own = movableClock();
    const t = await startTestServer({ clock: own });
    const runner = jobRunner(t.connectionString, t.deps);
    let universal: Buffer;
    let original: Buffer;
    let root: string;
    let signedAt: Date;
    try {
      root = await (await fetch(`${t.baseUrl}/pki/ca.pem`)).text();
      const ticket = await signedDocument(t, pdf, ['Elena Sol']);
      signedAt = own.now();
      // The job runs two hours later (say, after retries): the signer certificate (30 minutes) has ended.
      own.advance(2 * HOUR);
      await runner.runDue();
      universal = (await t.client.downloadDocument('universal', ticket)).bytes;
      original = (await t.client.downloadDocument('original', ticket)).bytes;
    } finally {
      await runner.close();
      await t.close(); // the service is gone: its OCSP responder, CRLs and TSA with it
    }
    const signer = (await dssOf(universal)).certs.find((c) => new X509Certificate(c).subject.includes('Elena Sol'))!;
    const signerNotAfter = new Date(new X509Certificate(signer).validTo);
    const late = new Date(signedAt.getTime() + 2 * HOUR);
    expect(signerNotAfter.getTime()).toBeLessThan(late.getTime());

    // Everything verified at the time of the document time stamp, from the file alone; the OCSP
    // answers were given after the signature (they vouch for the certificate past its use).
    const { lta } = await expectLta(universal, original, root, 1, late);
    for (const o of lta.ocsp) {
      const thisUpdate = Date.parse(`${/This Update: (.*)/.exec(o.text)?.[1]}`);
      expect(thisUpdate).toBeGreaterThan(signedAt.getTime());
    }
    // The signer's path at the signature time, and the CA's revocation at the archive time, with
    // the DSS's certificates and CRLs only.
    expect(await opensslVerifyFromDss(universal, root, signer, { at: signedAt, crlCheck: false })).toMatch(/leaf.pem: OK/);
    const issuing = (await dssOf(universal)).certs.find(
      (c) => new X509Certificate(c).ca && new X509Certificate(c).subject !== new X509Certificate(c).issuer,
    )!;
    expect(await opensslVerifyFromDss(universal, root, issuing, { at: late, crlCheck: true })).toMatch(/leaf.pem: OK/);
    // pdfsig on a machine whose clock is past the signer certificate's end: the signature itself
    // still verifies. poppler 22.12 judges the certificate at its own "now" and reads no DSS, so it
    // calls it expired: the long-term checks above are openssl's, from the DSS.
    const shifted = await pdfsigShifted(universal, root, '+3h');
    expect(shifted).toMatch(/Signature Validation: Signature is Valid\./);
    expect(shifted).toMatch(/Certificate has Expired/);
  });
});

describe('universal rendition with an external time-stamp authority (SELLO_TSA_URL)', () => {
  it("gathers the external TSA's chain and revocation data from its certificates' addresses; refuses when they fail", async () => {
    const other = await startTestServer({ freshPki: true });
    const otherRoot = await (await fetch(`${other.baseUrl}/pki/ca.pem`)).text();
    // The other service's certificates name http://127.0.0.1/...; its endpoints are on its own port.
    let fail = false;
    const fetched: string[] = [];
    s.deps.fetchPkiData = async (url, init) => {
      fetched.push(String(url));
      if (fail) {
        return new Response('down', { status: 503 });
      }
      return fetch(String(url).replace('http://127.0.0.1/', `${other.baseUrl}/`), init);
    };
    s.deps.externalTsa = { url: `${other.baseUrl}/tsa`, trustedRootsDer: pemCertificates(otherRoot) };
    try {
      fail = true;
      const refused = await signedDocument(s, pdf, ['Fernando Gil']);
      await jobs.runDue();
      const err = await apiError(s.client.downloadDocument('universal', refused));
      expect(err.details).toMatchObject({ universal_status: 'failed' });
      expect(String((err.details as { reason: string }).reason)).toMatch(/Time-Stamping Authority.*HTTP 503/);
      expect((await history(s, refused)).map((h) => h.action)).toContain('universal_failed');

      fail = false;
      fetched.length = 0;
      await retryNow(s);
      await jobs.runDue();
      const universal = (await s.client.downloadDocument('universal', refused)).bytes;
      const original = (await s.client.downloadDocument('original', refused)).bytes;
      expect(fetched.some((u) => u.endsWith('/pki/ocsp'))).toBe(true);
      expect(fetched.some((u) => u.endsWith('/pki/crl'))).toBe(true);
      // The signatures chain to this service's root, the time stamps to the other's.
      const report = await pdfsig(universal, rootPem);
      expect(report.signatures.filter((x) => x.type === 'ETSI.CAdES.detached').map((x) => x.valid)).toEqual([true]);
      expect(universal.subarray(0, original.length).equals(original)).toBe(true);
      const lta = await opensslLtaCheck(universal, otherRoot);
      expect(lta.tsVerify).toMatch(/Verification: OK/);
      for (const o of lta.ocsp) {
        expect(o.status).toBe('good');
      }
      const dss = await dssOf(universal);
      expect(dss.certs.some((c) => c.equals(other.deps.pki.pki.tsa.certificateDer))).toBe(true);
      expect(dss.certs.some((c) => c.equals(other.deps.pki.pki.root.certificateDer))).toBe(true);
      expect(dss.crls).toHaveLength(4); // each service's issuing CA and root
    } finally {
      s.deps.externalTsa = undefined;
      s.deps.fetchPkiData = undefined;
      await other.close();
    }
  });
});
