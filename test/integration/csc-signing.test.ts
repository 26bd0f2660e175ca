// Remote signing (authority CSC) against a Cloud Signature Consortium API v2 provider simulated on
// loopback (csc-provider.ts): the service sends the signer to the provider's authorization page
// (authorization code with PKCE, scope credential), the provider sends them back with a code, and
// the service lists the signer's credentials, takes the one whose certificate names the signer,
// asks signatures/signHash for the signed attributes' hash and finishes the signature. Judged by
// pdfsig trusting the test CA, the report (certType CSC, the provider's name) and the universal
// rendition; then a replayed return, a provider holding no credential for the signer; an ECDSA
// credential; a SCAL2 credential whose provider offers only RSASSA-PSS, signing with the SAD of
// credentials/authorize bound to the hash; the provider refusing a SAD for another hash; and a set
// link, where one authorization at the provider signs every document of the set.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CertTestPki, createCertTestPki } from '../helpers/cert-pki.js';
import { type CscProvider, startCscProvider } from '../helpers/csc-provider.js';
import { type JobRunner, jobRunner } from '../helpers/jobs.js';
import { firstSignature, opensslCmsVerify } from '../helpers/openssl-cms.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { publicCall } from '../helpers/public-call.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';

const LUIS = { name: 'Luis Romero', email: 'luis@example.com' };
const EVA = { name: 'Eva Lopez', email: 'eva@example.com' };
const MARTA = { name: 'Marta Ruiz', email: 'marta@example.com' };
const OIDS = { sha256: '2.16.840.1.101.3.4.2.1', ecdsaWithSha256: '1.2.840.10045.4.3.2', rsassaPss: '1.2.840.113549.1.1.10' };
const PROVIDER = 'Test TSP';

let s: TestServer;
let jobs: JobRunner;
let ca: CertTestPki;
let tsp: CscProvider;
let pdf: string;
let dir: string;

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
  // Eva's credential is an ECDSA P-256 key; Marta's a SCAL2 RSA key her provider signs with PSS only.
  const eva = await ca.issue({ ...EVA, key: 'ec-p256' });
  tsp.add({ credentialID: 'eva-ec', user: 'eva', certificateDer: eva.der, chainDer: [], privateKey: eva.privateKey });
  const marta = await ca.issue(MARTA);
  tsp.add({
    credentialID: 'marta-scal2',
    user: 'marta',
    certificateDer: marta.der,
    chainDer: [],
    privateKey: marta.privateKey,
    algo: [OIDS.rsassaPss],
    scal: '2',
  });
  dir = mkdtempSync(join(tmpdir(), 'sello-csc-cms-'));
}, 90_000);
afterAll(async () => {
  await jobs?.close();
  await s?.close();
  await tsp?.close();
  await ca?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cscDocument(email = LUIS.email) {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Contrato',
    stickers: [{ authority: 'CSC', data: email, name: 'Firmante', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
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

  /** Signs a CSC document of `email` through the provider as `user`; the provider's calls it made. */
  async function signRemotely(user: string, email: string) {
    tsp.signInAs(user);
    const from = tsp.calls.length;
    const { doc, token } = await cscDocument(email);
    const started = await publicCall(s.baseUrl, 'POST', `/sign/api/${token}/csc/authorize`, { language: 'en' });
    const { back } = await authorizeAtProvider(started.json.authorize_url);
    expect(back.status, await back.clone().text()).toBe(303);
    const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    return { doc, file, calls: tsp.calls.slice(from).map((c) => ({ ...c, path: c.path.split('/csc/v2/')[1] })) };
  }

  const cmsPrint = (der: Buffer) => {
    writeFileSync(join(dir, 'print.p7s'), der);
    const r = spawnSync('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', join(dir, 'print.p7s')], { encoding: 'utf8' });
    return r.stdout.slice(r.stdout.indexOf('signerInfos:'));
  };

  it('an ECDSA P-256 credential: signHash asked for ecdsa-with-SHA256; pdfsig and openssl cms verify it; CSC in the report', async () => {
    const { doc, file, calls } = await signRemotely('eva', EVA.email);
    const signHash = calls.find((c) => c.path === 'signatures/signHash')!;
    expect(signHash.body).toMatchObject({ credentialID: 'eva-ec', signAlgo: OIDS.ecdsaWithSha256, hashAlgorithmOID: OIDS.sha256 });
    expect(signHash.body.SAD).toBeUndefined();
    const checked = await pdfsig(file, ca.rootPem);
    expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true, commonName: EVA.name });
    const sig = firstSignature(file);
    expect(opensslCmsVerify(dir, 'eva', sig, ca.rootPem).out).toMatch(/CMS Verification successful/);
    expect(cmsPrint(sig.der)).toMatch(/signatureAlgorithm:\s*\n\s*algorithm: ecdsa-with-SHA256/);
    const report = await s.client.signatureReport(doc.document_ticket);
    expect(report.firmas[0]).toMatchObject({ certType: 'CSC', validSignature: true, downstreamData: { provider: PROVIDER } });
  }, 60_000);

  it('a SCAL2 credential: credentials/authorize binds the SAD to the hash signHash then signs, with PSS as the provider offers; pdfsig and openssl cms verify it', async () => {
    const { doc, file, calls } = await signRemotely('marta', MARTA.email);
    expect(calls.map((c) => c.path)).toEqual(['credentials/list', 'credentials/info', 'credentials/authorize', 'signatures/signHash']);
    const [authorize, signHash] = calls.slice(2);
    expect(authorize.body).toMatchObject({ credentialID: 'marta-scal2', numSignatures: 1, hashAlgorithmOID: OIDS.sha256 });
    expect(signHash.body).toMatchObject({ credentialID: 'marta-scal2', signAlgo: OIDS.rsassaPss, hashes: authorize.body.hashes });
    expect(typeof signHash.body.SAD).toBe('string');
    const checked = await pdfsig(file, ca.rootPem);
    expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true, commonName: MARTA.name });
    const sig = firstSignature(file);
    expect(opensslCmsVerify(dir, 'marta', sig, ca.rootPem).out).toMatch(/CMS Verification successful/);
    expect(cmsPrint(sig.der)).toMatch(/signatureAlgorithm:\s*\n\s*algorithm: rsassaPss/);
    const report = await s.client.signatureReport(doc.document_ticket);
    expect(report.firmas[0]).toMatchObject({ certType: 'CSC', validSignature: true });
  }, 60_000);

  it('the provider signs a SCAL2 credential only with a SAD bound to the very hash, once', async () => {
    const token = tsp.tokenFor('marta');
    const post = async (path: string, body: unknown) => {
      const r = await fetch(`${tsp.baseUrl}/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: r.status, json: (await r.json()) as Record<string, unknown> };
    };
    const hashA = createHash('sha256').update('a').digest('base64');
    const hashB = createHash('sha256').update('b').digest('base64');
    const pss = { signAlgo: OIDS.rsassaPss, hashAlgorithmOID: OIDS.sha256 };
    const { json } = await post('credentials/authorize', {
      credentialID: 'marta-scal2',
      numSignatures: 1,
      hashes: [hashA],
      hashAlgorithmOID: OIDS.sha256,
    });
    const sad = json.SAD as string;
    const params = Buffer.from(
      '3034a00f300d06096086480165030402010500a11c301a06092a864886f70d010108300d06096086480165030402010500a203020120',
      'hex',
    ).toString('base64');
    const other = await post('signatures/signHash', {
      credentialID: 'marta-scal2',
      SAD: sad,
      hashes: [hashB],
      ...pss,
      signAlgoParams: params,
    });
    expect([other.status, other.json.error_description]).toEqual([400, 'the SAD does not authorize these hashes']);
    const none = await post('signatures/signHash', { credentialID: 'marta-scal2', hashes: [hashA], ...pss, signAlgoParams: params });
    expect(none.status).toBe(400);
    const right = await post('signatures/signHash', {
      credentialID: 'marta-scal2',
      SAD: sad,
      hashes: [hashA],
      ...pss,
      signAlgoParams: params,
    });
    expect(right.status, JSON.stringify(right.json)).toBe(200);
    const again = await post('signatures/signHash', {
      credentialID: 'marta-scal2',
      SAD: sad,
      hashes: [hashA],
      ...pss,
      signAlgoParams: params,
    });
    expect(again.status).toBe(400);
  });

  it('a set link: one authorization at the provider signs both documents (one SAD for both hashes); pdfsig trusts each', async () => {
    tsp.signInAs('marta');
    const set = await s.client.createDocumentSet({ name: 'Alta' });
    const tickets: string[] = [];
    for (const name of ['Contrato', 'Anexo']) {
      const doc = await s.client.createDocument({
        b64_doc: pdf,
        name,
        document_set: set.uuid,
        stickers: [{ authority: 'CSC', data: MARTA.email, name: 'Marta', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
      });
      tickets.push(doc.document_ticket);
    }
    const closed = await s.client.closeDocumentSet(set.uuid, { language: 'en' });
    const setToken = closed.signers[0].signer_url.split('/').pop()!;
    const drawn = await publicCall(s.baseUrl, 'POST', `/sign/api/set/${setToken}/sign`, {
      consent: true,
      signature: { type: 'typed', text: 'M' },
    });
    expect([drawn.status, drawn.json.error.code, drawn.json.error.details.authorize]).toEqual([
      409,
      'CERTIFICATE_REQUIRED',
      '/sign/api/set/{token}/csc/authorize',
    ]);
    const from = tsp.calls.length;
    const started = await publicCall(s.baseUrl, 'POST', `/sign/api/set/${setToken}/csc/authorize`, { language: 'en' });
    expect(started.status, started.text).toBe(200);
    const { back } = await authorizeAtProvider(started.json.authorize_url);
    expect(back.status, await back.clone().text()).toBe(303);
    expect(back.headers.get('location')).toBe(`${s.baseUrl}/sign/set/${setToken}`);
    const calls = tsp.calls.slice(from).map((c) => ({ path: c.path.split('/csc/v2/')[1], body: c.body }));
    expect(calls.map((c) => c.path)).toEqual(['credentials/list', 'credentials/info', 'credentials/authorize', 'signatures/signHash']);
    expect(calls[2].body).toMatchObject({ numSignatures: 2 });
    expect((calls[2].body.hashes as string[]).length).toBe(2);
    expect(calls[3].body.hashes).toEqual(calls[2].body.hashes);
    for (const ticket of tickets) {
      const file = (await s.client.downloadDocument('original', ticket)).bytes;
      const checked = await pdfsig(file, ca.rootPem);
      expect(checked.signatures, checked.output).toHaveLength(1);
      expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true, commonName: MARTA.name });
      expect((await s.client.signatureReport(ticket)).firmas[0]).toMatchObject({ certType: 'CSC', validSignature: true });
    }
    const after = await s.client.getDocumentSet(set.uuid);
    expect([after.status, after.signers[0].status]).toEqual(['COMPLETED', 'signed']);
  }, 90_000);
});
