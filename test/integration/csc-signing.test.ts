// Remote signing (authority CSC) against a Cloud Signature Consortium API v2 provider simulated on
// loopback (csc-provider.ts): the service sends the signer to the provider's authorization page
// (authorization code with PKCE, scope service), the provider sends them back with a code, and
// the service lists the signer's credentials, takes the one whose certificate names the signer,
// has credentials/authorize bind a SAD to the signed attributes' hash (authMode implicit), asks
// signatures/signHash for it and finishes the signature. Judged by pdfsig trusting the test CA, the
// report (certType CSC, the provider's name) and the universal rendition; then a replayed return, a
// provider holding no credential for the signer; an ECDSA credential; a SCAL2 credential (authMode
// oauth2code) whose provider offers only RSASSA-PSS, signed after a second trip to the provider
// with scope credential and the hash; the provider holding a credential-scoped token to its hashes;
// a signer declining at the second step; a second authorization for another hash; a credential
// asking a PIN; and a set link, where one authorization at the provider signs every document of
// the set (two documents' hashes in one credential authorization).
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
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
const NADIA = { name: 'Nadia Ortega', email: 'nadia@example.com' };
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
      scope: 'service',
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
      'credentials/authorize',
      'signatures/signHash',
    ]);
    // A SCAL1 credential the provider authorizes by its own means: one trip, a SAD bound to the hash.
    const authorize = tsp.calls.find((c) => c.path.endsWith('/credentials/authorize'))!;
    expect(authorize.body).toMatchObject({ numSignatures: 1, hashes: signHash.body.hashes });
    expect(signHash.body.SAD).toBeTypeOf('string');

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

  /**
   * Signs a CSC document of `email` through the provider as `user`, approving every trip the service
   * sends them on; the provider's calls it made and the authorization pages' addresses, in order.
   */
  async function signRemotely(user: string, email: string) {
    tsp.signInAs(user);
    const from = tsp.calls.length;
    const { doc, token } = await cscDocument(email);
    const started = await publicCall(s.baseUrl, 'POST', `/sign/api/${token}/csc/authorize`, { language: 'en' });
    const trips = [started.json.authorize_url as string];
    let { back } = await authorizeAtProvider(trips[0]);
    expect(back.status, await back.clone().text()).toBe(303);
    while (back.headers.get('location')!.startsWith(tsp.baseUrl)) {
      trips.push(back.headers.get('location')!);
      ({ back } = await authorizeAtProvider(trips.at(-1)!));
      expect(back.status, await back.clone().text()).toBe(303);
    }
    expect(back.headers.get('location')).toBe(`${s.baseUrl}/sign/${token}`);
    const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    const calls = tsp.calls.slice(from).map((c) => ({ ...c, path: c.path.split('/csc/v2/')[1] }));
    return { doc, token, file, calls, trips: trips.map((t) => Object.fromEntries(new URL(t).searchParams)) };
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
    expect(calls.map((c) => c.path)).toEqual(['credentials/list', 'credentials/info', 'credentials/authorize', 'signatures/signHash']);
    expect(signHash.body.SAD).toBeTypeOf('string');
    const checked = await pdfsig(file, ca.rootPem);
    expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true, commonName: EVA.name });
    const sig = firstSignature(file);
    expect(opensslCmsVerify(dir, 'eva', sig, ca.rootPem).out).toMatch(/CMS Verification successful/);
    expect(cmsPrint(sig.der)).toMatch(/signatureAlgorithm:\s*\n\s*algorithm: ecdsa-with-SHA256/);
    const report = await s.client.signatureReport(doc.document_ticket);
    expect(report.firmas[0]).toMatchObject({ certType: 'CSC', validSignature: true, downstreamData: { provider: PROVIDER } });
  }, 60_000);

  it('a SCAL2 credential (oauth2code): a second trip to the provider with scope credential and the hash, then signHash under that token, with PSS as the provider offers; pdfsig and openssl cms verify it', async () => {
    const { doc, file, calls, trips } = await signRemotely('marta', MARTA.email);
    expect(trips).toHaveLength(2);
    expect(trips[0]).toMatchObject({ scope: 'service' });
    expect(trips[0].credentialID).toBeUndefined();
    expect(trips[1]).toMatchObject({
      scope: 'credential',
      credentialID: 'marta-scal2',
      numSignatures: '1',
      hashAlgorithmOID: OIDS.sha256,
      code_challenge_method: 'S256',
      redirect_uri: `${s.baseUrl}/sign/csc/callback`,
    });
    // A new state and a new PKCE pair for the second trip.
    expect(trips[1].state).not.toBe(trips[0].state);
    expect(trips[1].code_challenge).not.toBe(trips[0].code_challenge);
    // No credentials/authorize and no SAD: the access token is the authorization of this hash.
    expect(calls.map((c) => c.path)).toEqual(['credentials/list', 'credentials/info', 'signatures/signHash']);
    const signHash = calls[2];
    expect(signHash.body).toMatchObject({ credentialID: 'marta-scal2', signAlgo: OIDS.rsassaPss });
    expect(signHash.body.SAD).toBeUndefined();
    expect((signHash.body.hashes as string[]).map((h) => Buffer.from(h, 'base64').toString('base64url'))).toEqual([trips[1].hashes]);
    const checked = await pdfsig(file, ca.rootPem);
    expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true, commonName: MARTA.name });
    const sig = firstSignature(file);
    expect(opensslCmsVerify(dir, 'marta', sig, ca.rootPem).out).toMatch(/CMS Verification successful/);
    expect(cmsPrint(sig.der)).toMatch(/signatureAlgorithm:\s*\n\s*algorithm: rsassaPss/);
    const report = await s.client.signatureReport(doc.document_ticket);
    expect(report.firmas[0]).toMatchObject({ certType: 'CSC', validSignature: true });
  }, 60_000);

  /** An access token of scope credential for `hashes` (Base64) of `credentialID`, as the service's second trip obtains it. */
  async function credentialToken(user: string, credentialID: string, hashes: string[]) {
    tsp.signInAs(user);
    const verifier = randomBytes(32).toString('base64url');
    const redirectUri = 'http://127.0.0.1/callback';
    const url = new URL(`${tsp.baseUrl}/oauth2/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: tsp.clientId,
      redirect_uri: redirectUri,
      scope: 'credential',
      credentialID,
      numSignatures: String(hashes.length),
      hashes: hashes.map((h) => Buffer.from(h, 'base64').toString('base64url')).join(','),
      hashAlgorithmOID: OIDS.sha256,
      state: 'state',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const page = await (await fetch(url)).text();
    const approve = /id="approve" href="([^"]+)"/.exec(page)![1].replace(/&amp;/g, '&');
    const r = await fetch(`${tsp.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: new URL(approve).searchParams.get('code')!,
        code_verifier: verifier,
        client_id: tsp.clientId,
        client_secret: tsp.clientSecret,
        redirect_uri: redirectUri,
      }).toString(),
    });
    return ((await r.json()) as { access_token: string }).access_token;
  }

  it('the provider signs a SCAL2 credential only under a credential-scoped token for the very hash, once; a service token signs nothing of it', async () => {
    const post = async (accessToken: string, path: string, body: unknown) => {
      const r = await fetch(`${tsp.baseUrl}/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: r.status, json: (await r.json()) as Record<string, unknown> };
    };
    const hashA = createHash('sha256').update('a').digest('base64');
    const hashB = createHash('sha256').update('b').digest('base64');
    const params = Buffer.from(
      '3034a00f300d06096086480165030402010500a11c301a06092a864886f70d010108300d06096086480165030402010500a203020120',
      'hex',
    ).toString('base64');
    const sign = (accessToken: string, hash: string, extra: Record<string, unknown> = {}) =>
      post(accessToken, 'signatures/signHash', {
        credentialID: 'marta-scal2',
        hashes: [hash],
        signAlgo: OIDS.rsassaPss,
        hashAlgorithmOID: OIDS.sha256,
        signAlgoParams: params,
        ...extra,
      });
    const forA = await credentialToken('marta', 'marta-scal2', [hashA]);
    const other = await sign(forA, hashB);
    expect([other.status, other.json.error_description]).toEqual([400, 'the access token does not authorize these hashes']);
    // A credential-scoped token lists nothing: it is for signing only.
    expect((await post(forA, 'credentials/list', {})).status).toBe(403);
    // A service token: no credentials/authorize for an oauth2code credential, and no signature without a SAD.
    const service = tsp.tokenFor('marta');
    const authorize = await post(service, 'credentials/authorize', {
      credentialID: 'marta-scal2',
      numSignatures: 1,
      hashes: [hashA],
      hashAlgorithmOID: OIDS.sha256,
    });
    expect([authorize.status, authorize.json.error_description]).toEqual([400, 'this credential is authorized through oauth2/authorize']);
    const none = await sign(service, hashA);
    expect([none.status, none.json.error_description]).toEqual([400, 'a valid SAD is required with a service access token']);
    const right = await sign(forA, hashA);
    expect(right.status, JSON.stringify(right.json)).toBe(200);
    const again = await sign(forA, hashA);
    expect([again.status, again.json.error_description]).toEqual([400, 'the access token does not authorize this credential']);
  });

  /** Starts a CSC signature of Marta's (SCAL2, oauth2code) and approves the first trip: the second trip's address. */
  async function firstTripOfMarta() {
    tsp.signInAs('marta');
    const from = tsp.calls.length;
    const { doc, token } = await cscDocument(MARTA.email);
    const started = await publicCall(s.baseUrl, 'POST', `/sign/api/${token}/csc/authorize`, { language: 'en' });
    const { approve, back } = await authorizeAtProvider(started.json.authorize_url);
    expect(back.status, await back.clone().text()).toBe(303);
    const second = new URL(back.headers.get('location')!);
    expect(second.origin + second.pathname).toBe(`${tsp.baseUrl}/oauth2/authorize`);
    expect(second.searchParams.get('scope')).toBe('credential');
    return { doc, token, approve, second, calls: () => tsp.calls.slice(from).map((c) => c.path.split('/csc/v2/')[1]) };
  }

  it('a signer declining at the second step: back to their page, nothing signed, neither return usable again', async () => {
    const { doc, token, approve, second, calls } = await firstTripOfMarta();
    const declined = await fetch(`${s.baseUrl}/sign/csc/callback?error=access_denied&state=${second.searchParams.get('state')}`, {
      redirect: 'manual',
    });
    expect(declined.status).toBe(303);
    expect(declined.headers.get('location')).toBe(`${s.baseUrl}/sign/${token}`);
    // The second step lasted only as long as the revision it would sign was prepared for.
    const stateHash = createHash('sha256').update(second.searchParams.get('state')!).digest('hex');
    const kept = await s.deps.db
      .selectFrom('csc_authorizations')
      .select(['expires_at', 'signer_row_id'])
      .where('state_hash', '=', stateHash)
      .executeTakeFirstOrThrow();
    const preparation = await s.deps.db
      .selectFrom('sat_preparations')
      .select('expires_at')
      .where('signer_row_id', '=', kept.signer_row_id)
      .executeTakeFirstOrThrow();
    expect(kept.expires_at.toISOString()).toBe(preparation.expires_at.toISOString());
    expect(calls()).toEqual(['credentials/list', 'credentials/info']);
    expect((await publicCall(s.baseUrl, 'GET', `/sign/api/${token}`)).json.signer.status).not.toBe('signed');
    expect((await s.client.signatureReport(doc.document_ticket)).firmas).toEqual([]);
    for (const again of [approve, `${s.baseUrl}/sign/csc/callback?code=x&state=${second.searchParams.get('state')}`]) {
      const replay = await fetch(again, { redirect: 'manual' });
      expect([replay.status, ((await replay.json()) as { error: { code: string } }).error.code]).toEqual([
        400,
        'CSC_AUTHORIZATION_INVALID',
      ]);
    }
    expect((await s.client.signatureReport(doc.document_ticket)).firmas).toEqual([]);
  }, 60_000);

  it('an authorization granted for another hash signs nothing: the provider refuses the prepared hash', async () => {
    const { doc, token, second, calls } = await firstTripOfMarta();
    const otherHash = createHash('sha256').update('another revision').digest('base64url');
    expect(second.searchParams.get('hashes')).not.toBe(otherHash);
    second.searchParams.set('hashes', otherHash);
    const { back } = await authorizeAtProvider(second.toString());
    expect(back.status).toBe(502);
    expect(((await back.json()) as { error: unknown }).error).toMatchObject({
      code: 'CSC_PROVIDER_ERROR',
      details: { step: 'signatures/signHash' },
    });
    expect(calls()).toEqual(['credentials/list', 'credentials/info', 'signatures/signHash']);
    expect((await publicCall(s.baseUrl, 'GET', `/sign/api/${token}`)).json.signer.status).not.toBe('signed');
    expect((await s.client.signatureReport(doc.document_ticket)).firmas).toEqual([]);
  }, 60_000);

  it('a credential asking a PIN (authMode explicit) is refused before anything is prepared or signed', async () => {
    const c = await ca.issue(NADIA);
    tsp.add({
      credentialID: 'nadia-pin',
      user: 'nadia',
      certificateDer: c.der,
      chainDer: [],
      privateKey: c.privateKey,
      authMode: 'explicit',
    });
    tsp.signInAs('nadia');
    const from = tsp.calls.length;
    const { doc, token } = await cscDocument(NADIA.email);
    const started = await publicCall(s.baseUrl, 'POST', `/sign/api/${token}/csc/authorize`, {});
    const { back } = await authorizeAtProvider(started.json.authorize_url);
    expect(back.status).toBe(502);
    expect(((await back.json()) as { error: unknown }).error).toMatchObject({
      code: 'CSC_PROVIDER_ERROR',
      details: { provider: PROVIDER, step: 'credentials/info' },
    });
    expect(tsp.calls.slice(from).map((x) => x.path.split('/csc/v2/')[1])).toEqual(['credentials/list', 'credentials/info']);
    expect((await s.client.signatureReport(doc.document_ticket)).firmas).toEqual([]);
  }, 60_000);

  it('a set link: one credential authorization at the provider for both hashes signs both documents; pdfsig trusts each', async () => {
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
    const first = await authorizeAtProvider(started.json.authorize_url);
    expect(first.back.status, await first.back.clone().text()).toBe(303);
    // Both documents prepared on the first return; one second trip authorizes both hashes.
    const second = new URL(first.back.headers.get('location')!);
    expect(Object.fromEntries(second.searchParams)).toMatchObject({ scope: 'credential', credentialID: 'marta-scal2', numSignatures: '2' });
    const hashes = second.searchParams.get('hashes')!.split(',');
    expect(hashes).toHaveLength(2);
    expect(tickets.map(() => 'unsigned')).toEqual(
      await Promise.all(tickets.map(async (t) => ((await s.client.signatureReport(t)).firmas.length === 0 ? 'unsigned' : 'signed'))),
    );
    const { back } = await authorizeAtProvider(second.toString());
    expect(back.status, await back.clone().text()).toBe(303);
    expect(back.headers.get('location')).toBe(`${s.baseUrl}/sign/set/${setToken}`);
    const calls = tsp.calls.slice(from).map((c) => ({ path: c.path.split('/csc/v2/')[1], body: c.body }));
    expect(calls.map((c) => c.path)).toEqual(['credentials/list', 'credentials/info', 'signatures/signHash']);
    expect((calls[2].body.hashes as string[]).map((h) => Buffer.from(h, 'base64').toString('base64url'))).toEqual(hashes);
    expect(calls[2].body.SAD).toBeUndefined();
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
