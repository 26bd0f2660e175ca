// The universal rendition (PAdES B-LTA) of a document signed with the signer's own SAT e.firma: the
// SAT's chain, its OCSP answer about the signer (a fresh one, or the one obtained at signing time
// when the responder is down) and the root's CRL for the issuing CA are embedded; a rendition is
// still made when no answer was ever had, saying so, and the signature is then not claimed B-LTA.
import { sign } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOcspResponse } from '../../src/pki/index.js';
import { type JobRunner, jobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { type SatCredential, type SatTestPki, createSatTestPki } from '../helpers/sat-pki.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { dssOf } from '../helpers/universal.js';
import { history } from '../helpers/universal-checks.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';

const MARIA = { rfc: 'GOLM800101AB1', curp: 'GOLM800101MDFMPR09', name: 'MARIA GOMEZ LOPEZ' };
const DOWN = 'http://127.0.0.1:9/ocsp';

let s: TestServer;
let jobs: JobRunner;
let sat: SatTestPki;
let ocsp: Awaited<ReturnType<SatTestPki['ocspResponder']>>;
let pdf: string;
let maria: SatCredential;
let crlServer: Server;
let crlRequests = 0;

beforeAll(async () => {
  // Where the issuing CA's certificate says the root publishes its CRL: known before the CA is made.
  crlServer = createServer((_req, res) => {
    crlRequests++;
    sat.rootCrl().then(
      (der) => res.writeHead(200, { 'content-type': 'application/pkix-crl' }).end(der),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((r) => crlServer.listen(0, '127.0.0.1', r));
  const port = (crlServer.address() as { port: number }).port;
  sat = await createSatTestPki({ issuingCrlUrl: `http://127.0.0.1:${port}/root.crl` });
  ocsp = await sat.ocspResponder();
  s = await startTestServer({ env: { SELLO_SAT_TRUST_PEM: sat.trustPemPath, SELLO_SAT_OCSP_URL: ocsp.url } });
  jobs = jobRunner(s.connectionString, s.deps);
  pdf = (await makePdf([A4])).toString('base64');
  maria = await sat.issue(MARIA);
}, 60_000);
afterAll(async () => {
  await jobs?.close();
  await s?.close();
  await ocsp?.close();
  await new Promise((r) => crlServer?.close(r));
  sat?.dispose();
});

/** The operator's SAT responder setting, changed for one step (as an unreachable responder). */
function responderAt(url: string | undefined) {
  (s.deps.config.sat as { ocspUrl: string | undefined }).ocspUrl = url;
}

async function post(path: string, body: unknown) {
  const res = await fetch(s.baseUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** A document signed by María with her e.firma (prepare, sign in node as the page does, finish). */
async function satSigned(): Promise<string> {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Contrato',
    stickers: [{ authority: 'SAT', data: MARIA.rfc, name: 'María Gómez', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
  });
  const token = doc.stickers[0].signer_url.split('/').pop()!;
  const prepared = await post(`/sign/api/${token}/sat/prepare`, {
    certificate: maria.cer.toString('base64'),
    consent: true,
    language: 'es',
  });
  expect(prepared.status, JSON.stringify(prepared.json)).toBe(200);
  const value = sign('sha256', Buffer.from(prepared.json.signed_attributes, 'base64'), maria.privateKey).toString('base64');
  const done = await post(`/sign/api/${token}/sat/finish`, { preparation_id: prepared.json.preparation_id, signature: value });
  expect(done.status, JSON.stringify(done.json)).toBe(200);
  return doc.document_ticket;
}

/** The DSS OCSP answers about María's certificate, as the SAT's issuing CA signed them. */
function answersAboutMaria(ocsps: Buffer[], issuerDer: Buffer) {
  return ocsps.filter((der) => {
    try {
      return checkOcspResponse(der, { certificateDer: maria.cer, issuerDer }).certStatus === 'good';
    } catch {
      return false;
    }
  });
}

async function storedAnswer(ticket: string): Promise<Buffer | null> {
  const r = await sql<{ ocsp_response: Buffer | null }>`select p.ocsp_response from sat_preparations p
    join documents d on d.id = p.document_id where d.ticket = ${ticket} and p.finished_at is not null`.execute(s.deps.db);
  return r.rows[0].ocsp_response;
}

/** Builds the rendition and checks what every rendition must be, whatever revocation data it has. */
async function buildAndCheck(ticket: string) {
  await jobs.runDue();
  const original = (await s.client.downloadDocument('original', ticket)).bytes;
  const universal = (await s.client.downloadDocument('universal', ticket)).bytes;
  expect(universal.subarray(0, original.length).equals(original)).toBe(true);
  const checked = await pdfsig(universal, sat.rootPem);
  const sigs = checked.signatures.filter((x) => x.type === 'ETSI.CAdES.detached');
  expect(sigs, checked.output).toHaveLength(1);
  expect(sigs[0], checked.output).toMatchObject({ valid: true, trusted: true, commonName: MARIA.name });
  expect((await qpdfCheckAsync(universal)).output).toMatch(/No syntax or stream encoding errors found/);
  const dss = await dssOf(universal);
  const report = await s.client.verifyPdf(universal);
  return { universal, dss, report };
}

describe('the universal rendition of an e.firma signature', () => {
  it('embeds the SAT chain and a fresh answer of its responder: the signature reaches B-LTA from embedded data', async () => {
    const ticket = await satSigned();
    const before = ocsp.requests;
    const { dss, report } = await buildAndCheck(ticket);
    expect(ocsp.requests).toBeGreaterThan(before); // asked again when the rendition was built
    if (process.env.DUMP) {
      (await import('node:fs')).writeFileSync('/tmp/sat-univ.pdf', (await s.client.downloadDocument('universal', ticket)).bytes);
      (await import('node:fs')).writeFileSync(
        '/tmp/sat-ca.pem',
        sat.rootPem + (await import('node:fs')).readFileSync(s.deps.config.pki ? '/dev/null' : '/dev/null'),
      );
    }
    expect(crlRequests).toBeGreaterThan(0);
    expect(dss.crls.length).toBeGreaterThan(0);
    const sat1 = report.firmas.find((f) => f.certType === 'SAT')!;
    expect(sat1).toMatchObject({ validSignature: true, level: 'B-LTA', validationData: 'embedded' });
    expect(report.documentIntegrity).toBe('intact');
    // María's certificate and both SAT CAs are in the DSS, with a good answer about her.
    expect(dss.certs.some((c) => c.equals(maria.cer))).toBe(true);
    const cas = dss.certs.filter((c) => /PRUEBAS/.test(c.toString('latin1')));
    expect(cas.length).toBeGreaterThanOrEqual(2);
    const issuer = cas.find((c) => answersAboutMaria(dss.ocsps, c).length > 0);
    expect(issuer, 'no OCSP answer about the e.firma certificate in the DSS').toBeDefined();
    const entry = (await history(s, ticket)).find((h) => h.action === 'universal_signed')!;
    expect(entry.details).toHaveProperty('sha256');
    expect(entry.details).not.toHaveProperty('validation_gaps');
  });

  it('embeds the answer obtained at signing time when the responder is down as the rendition is built', async () => {
    const ticket = await satSigned();
    const stored = await storedAnswer(ticket);
    expect(stored).not.toBeNull();
    responderAt(DOWN);
    try {
      const { dss, report } = await buildAndCheck(ticket);
      expect(dss.ocsps.some((o) => o.equals(stored!))).toBe(true);
      expect(report.firmas.find((f) => f.certType === 'SAT')).toMatchObject({ validSignature: true, level: 'B-LTA' });
    } finally {
      responderAt(ocsp.url);
    }
  });

  it('is still made when no answer was ever had, and the history names what it lacks', async () => {
    responderAt(DOWN);
    try {
      const ticket = await satSigned();
      expect(await storedAnswer(ticket)).toBeNull();
      const { dss, report } = await buildAndCheck(ticket);
      expect(dss.certs.some((c) => c.equals(maria.cer))).toBe(true);
      const firma = report.firmas.find((f) => f.certType === 'SAT')!;
      expect(firma.validSignature).toBe(true);
      // Without an answer about the signer the signature cannot claim long-term validation.
      expect(firma.level).toBe('B-T');
      expect(firma.validationData).toBe('none');
      const entry = (await history(s, ticket)).find((h) => h.action === 'universal_signed')!;
      expect(JSON.stringify(entry.details.validation_gaps)).toMatch(/OCSP for .*MARIA GOMEZ LOPEZ/);
    } finally {
      responderAt(ocsp.url);
    }
  });
});
