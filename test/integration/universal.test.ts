// The universal rendition (PAdES B-LTA) of a completed document: built by a job after completion,
// served at GET /api/document/universal/{ticket}, judged by pdfsig, qpdf and openssl from the file
// alone.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiError } from '../helpers/api-error.js';
import { type JobRunner, jobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { dssOf, opensslLtaCheck, signedDocument } from '../helpers/universal.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';

let s: TestServer;
let jobs: JobRunner;
let rootPem: string;
let pdf: string;

beforeAll(async () => {
  s = await startTestServer();
  jobs = jobRunner(s.connectionString, s.deps);
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  pdf = (await makePdf([A4, A4])).toString('base64');
});
afterAll(async () => {
  await jobs?.close();
  await s?.close();
});

async function historyActions(ticket: string) {
  const r = await sql<{ action: string; details: Record<string, unknown> }>`select h.action, h.details from document_history h
    join documents d on d.id = h.document_id where d.ticket = ${ticket} order by h.seq`.execute(s.deps.db);
  return r.rows;
}

describe('universal rendition', () => {
  it('is built after completion: B-LTA, every signature valid, earlier bytes a prefix', async () => {
    const ticket = await signedDocument(s, pdf);
    const early = await apiError(s.client.downloadDocument('universal', ticket));
    expect([early.status, early.code]).toEqual([409, 'NOT_YET_AVAILABLE']);
    await jobs.runDue();
    const original = (await s.client.downloadDocument('original', ticket)).bytes;
    const universal = (await s.client.downloadDocument('universal', ticket)).bytes;
    expect(universal.subarray(0, original.length).equals(original)).toBe(true);

    const report = await pdfsig(universal, rootPem);
    console.log(report.output);
    const check = await qpdfCheckAsync(universal);
    expect(check.output).toMatch(/No syntax or stream encoding errors found/);
    const lta = await opensslLtaCheck(universal, rootPem);
    console.log(lta.tsVerify, lta.ocsp.map((o) => o.text).join('\n'), lta.crlVerify);
    const dss = await dssOf(universal);
    console.log(dss.certs.length, dss.ocsps.length, dss.crls.length, dss.vriKeys);
    console.log(await historyActions(ticket));
  });
});
