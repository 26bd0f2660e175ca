// Remote signing (authority CSC) against a Cloud Signature Consortium API v2 provider simulated on
// loopback (csc-provider.ts): the service sends the signer to the provider's authorization page
// (authorization code with PKCE, scope credential), the provider sends them back with a code, and
// the service lists the signer's credentials, takes the one whose certificate names the signer,
// asks signatures/signHash for the signed attributes' hash and finishes the signature. Judged by
// pdfsig trusting the test CA, the report (certType CSC, the provider's name) and the universal
// rendition; then a replayed return, a provider holding no credential for the signer.
import { createHash } from 'node:crypto';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CertTestPki, createCertTestPki } from '../helpers/cert-pki.js';
import { type CscProvider, startCscProvider } from '../helpers/csc-provider.js';
import { type JobRunner, jobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { publicCall } from '../helpers/public-call.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';

const LUIS = { name: 'Luis Romero', email: 'luis@example.com' };
const PROVIDER = 'Test TSP';

let s: TestServer;
let jobs: JobRunner;
let ca: CertTestPki;
let tsp: CscProvider;
let pdf: string;

beforeAll(async () => {
  ca = await createCertTestPki();
  tsp = await startCscProvider();
  const providers = [{ name: PROVIDER, base_url: tsp.baseUrl, client_id: tsp.clientId, client_secret: tsp.clientSecret }];
  s = await startTestServer({ env: { SELLO_CSC_PROVIDERS: JSON.stringify(providers), SELLO_CSC_TRUST_PEM: ca.trustPemPath } });
  jobs = jobRunner(s.connectionString, s.deps);
  pdf = (await makePdf([A4])).toString('base64');
  // Luis holds two credentials at the provider: one for another address, one for his.
  for (const email of ['luis.old@example.com', LUIS.email]) {
    const c = await ca.issue({ name: LUIS.name, email });
    tsp.add({
      credentialID: `cred-${email}`,
      user: 'luis',
      certificateDer: c.der,
      chainDer: [new X509Certificate(ca.rootPem).raw],
      privateKey: c.privateKey,
    });
  }
}, 90_000);
afterAll(async () => {
  await jobs?.close();
  await s?.close();
  await tsp?.close();
  await ca?.close();
});

async function cscDocument() {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Contrato',
    stickers: [{ authority: 'CSC', data: LUIS.email, name: 'Luis', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
  });
  return { doc, token: doc.stickers[0].signer_url.split('/').pop()! };
}

/** The signer at the provider: opens the authorization page and follows its approval link back to the service. */
async function authorizeAtProvider(authorizeUrl: string) {
  const page = await (await fetch(authorizeUrl)).text();
  const approve = /id="approve" href="([^"]+)"/.exec(page)![1].replace(/&amp;/g, '&');
  return { approve, back: await fetch(approve, { redirect: 'manual' }) };
}

describe('remote signing with a CSC provider', () => {
  it('authorize at the provider → back with a code → signHash: valid and trusted in pdfsig, CSC and the provider in the report, B-LTA universal rendition', async () => {
    tsp.signInAs('luis');
    const { doc, token } = await cscDocument();
    const info = await publicCall(s.baseUrl, 'GET', `/sign/api/${token}`);
    expect(info.json.signer).toMatchObject({ authority: 'CSC', proof: 'remote' });
    const started = await publicCall(s.baseUrl, 'POST', `/sign/api/${token}/csc/authorize`, { language: 'en' });
    expect(started.status, started.text).toBe(200);
    const url = new URL(started.json.authorize_url);
    expect(url.origin + url.pathname).toBe(`${tsp.baseUrl}/oauth2/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      scope: 'credential',
      code_challenge_method: 'S256',
      redirect_uri: `${s.baseUrl}/sign/csc/callback`,
    });
    const { approve, back } = await authorizeAtProvider(started.json.authorize_url);
    expect(back.status, await back.clone().text()).toBe(303);
    expect(back.headers.get('location')).toBe(`${s.baseUrl}/sign/${token}`);
    // The hash the provider signed is the SHA-256 of signed attributes, named by its OID.
    const signHash = tsp.calls.find((c) => c.path.endsWith('/signatures/signHash'))!;
    expect(signHash.body).toMatchObject({ credentialID: `cred-${LUIS.email}`, hashAlgorithmOID: '2.16.840.1.101.3.4.2.1' });
    expect(tsp.calls.map((c) => c.path.split('/csc/v2/')[1])).toEqual([
      'credentials/list',
      'credentials/info',
      'credentials/info',
      'signatures/signHash',
    ]);

    const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    const checked = await pdfsig(file, ca.rootPem);
    expect(checked.signatures[0], checked.output).toMatchObject({
      valid: true,
      trusted: true,
      type: 'ETSI.CAdES.detached',
      commonName: LUIS.name,
    });
    expect((await qpdfCheckAsync(file)).output).toMatch(/No syntax or stream encoding errors found/);
    const report = await s.client.signatureReport(doc.document_ticket);
    expect(report.firmas[0]).toMatchObject({
      certType: 'CSC',
      validSignature: true,
      downstreamData: { authority: 'CSC', dataType: 'email', subject: LUIS.email, provider: PROVIDER },
      ocsp: { certStatus: 'good' },
    });
    expect(report.firmas[0].certificados[0]).toMatchObject({ commonName: LUIS.name, issuerCommonName: 'Sello Test Signers CA' });

    await jobs.runDue();
    const universal = (await s.client.downloadDocument('universal', doc.document_ticket)).bytes;
    const u = await pdfsig(universal, ca.rootPem);
    expect(u.signatures.filter((x) => x.type === 'ETSI.CAdES.detached')[0], u.output).toMatchObject({ valid: true, trusted: true });
    const verified = await s.client.verifyPdf(universal);
    expect(verified.firmas.find((f) => f.certType === 'CSC')).toMatchObject({ level: 'B-LTA', validationData: 'embedded' });

    // The same return again is refused: the state is used once.
    const replay = await fetch(approve, { redirect: 'manual' });
    expect(replay.status).toBe(400);
    expect((await replay.json()).error.code).toBe('CSC_AUTHORIZATION_INVALID');
    expect(createHash('sha256').update(file).digest('hex')).toBe(
      createHash('sha256')
        .update((await s.client.downloadDocument('original', doc.document_ticket)).bytes)
        .digest('hex'),
    );
  }, 120_000);

  it('a provider account with no credential naming the signer signs nothing', async () => {
    tsp.signInAs('nobody');
    const { doc, token } = await cscDocument();
    const started = await publicCall(s.baseUrl, 'POST', `/sign/api/${token}/csc/authorize`, {});
    const { back } = await authorizeAtProvider(started.json.authorize_url);
    expect(back.status).toBe(422);
    expect((await back.json()).error).toMatchObject({ code: 'CERTIFICATE_REFUSED', details: { reason: 'name_mismatch' } });
    const status = await publicCall(s.baseUrl, 'GET', `/sign/api/${token}`);
    expect(status.json.signer.status).not.toBe('signed');
    expect((await s.client.signatureReport(doc.document_ticket)).firmas).toEqual([]);
  }, 60_000);
});
