// What one process changes, another sees. The PKI is the one thing a process keeps in memory: a
// process hears of a change another stored (a renewed OCSP responder certificate, an operator's CA)
// through the announcement its transaction makes, and one that missed it while its connection was
// down finds it when it connects again. Accounts, API keys and templates are read from the
// database at each request: a second process sees a key rotation, an account update and a
// template saved through the first at its next request.
import { randomBytes } from 'node:crypto';
import * as pkijs from 'pkijs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelloClient } from '../../src/client/index.js';
import { rotateKey } from '../../src/domain/accounts/rotate-key.js';
import { updateAccount } from '../../src/domain/accounts/update-account.js';
import type { Clock } from '../../src/domain/deps.js';
import { followPkiChanges } from '../../src/domain/pki/follow-pki-changes.js';
import { createPkiResponder, type PkiResponder } from '../../src/domain/pki/pki-responses.js';
import { buildApp } from '../../src/http/app.js';
import { derToPem, generateServicePki, importPki, openPkiMaterial, sealPkiMaterial, type PkiMaterial } from '../../src/pki/index.js';
import { createSecretBox, type SecretBox } from '../../src/pki/secret-box.js';
import type { ChangeListener } from '../../src/store/change-listener.js';
import { openDb, type DbHandle } from '../../src/store/db.js';
import { loadPkiMaterial, replacePkiMaterial, storePkiMaterial } from '../../src/store/pki-repo.js';
import { createTestDatabase, startTestServer, type TestServer } from '../helpers/server.js';

const DAY = 86_400_000;
const BASE = 'http://127.0.0.1';
const settings = { organization: 'Sello Cluster Test', baseUrl: BASE };

describe('the PKI across processes', () => {
  const realNow = Date.now();
  // Generated 340 days ago: the responder certificate (365 days) is due for renewal now.
  const clock: Clock = { now: () => new Date(realNow) };
  let database: { url: string; drop: () => Promise<void> };
  let handle: DbHandle;
  let secrets: SecretBox;
  let material: PkiMaterial;
  let a: PkiResponder;
  let b: PkiResponder;
  let following: ChangeListener;
  const warnings: string[] = [];
  const stored = async () => openPkiMaterial((await loadPkiMaterial(handle.db))!.sealed, secrets);

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = openDb(database.url, 5);
    secrets = createSecretBox(randomBytes(32));
    material = await generateServicePki({ ...settings, now: new Date(realNow - 340 * DAY) });
    await storePkiMaterial(handle.db, 'generated', sealPkiMaterial(material, secrets));
    const deps = { db: handle.db, secrets, clock };
    a = createPkiResponder(deps, await importPki(material), '1.2.3.4', settings);
    b = createPkiResponder(deps, await importPki(material), '1.2.3.4', settings);
    following = followPkiChanges({ connectionString: database.url, responder: b, warn: (m) => warnings.push(m) });
    await following.ready;
  });
  afterAll(async () => {
    await following?.stop();
    await handle?.close();
    await database?.drop();
  });

  it('takes up the responder certificate another process renewed at once, not at its next hourly check', async () => {
    // A's daily job renews; B has just checked (so its own check would not come for an hour).
    expect(await a.checkOcspResponder()).toBe(true);
    const renewed = (await stored()).ocsp.certificateDer;
    expect(renewed.equals(material.ocsp.certificateDer)).toBe(false);
    await expect.poll(() => b.pki.ocsp.certificateDer.equals(renewed)).toBe(true);
    // B's OCSP answers carry the renewed responder certificate.
    const answer = await b.ocsp(await ocspRequestFor(material));
    expect(responderCertificates(answer).some((c) => c.equals(renewed))).toBe(true);
    expect(warnings).toContain('took up the PKI material another process stored');
  });

  it("takes up an operator's CA another process stored, whole", async () => {
    const operator = await generateServicePki({ organization: 'Operator CA', baseUrl: BASE, now: new Date(realNow - DAY) });
    await replacePkiMaterial(handle.db, 'operator', sealPkiMaterial(operator, secrets));
    await expect.poll(() => b.pki.issuing.certificateDer.equals(operator.issuing.certificateDer)).toBe(true);
    expect(b.pki.root.certificateDer.equals(operator.root.certificateDer)).toBe(true);
    expect(b.pki.tsa.certificateDer.equals(operator.tsa.certificateDer)).toBe(true);
    expect(b.pki.ocsp.certificateDer.equals(operator.ocsp.certificateDer)).toBe(true);
  });

  it('finds a change it could not hear when its connection comes back', async () => {
    const next = await generateServicePki({ organization: 'Changed unheard', baseUrl: BASE, now: new Date(realNow - DAY) });
    // A change that announces nothing, as one made while B's connection was down would reach B.
    await sql`alter table pki_material disable trigger pki_material_changed`.execute(handle.db);
    await replacePkiMaterial(handle.db, 'operator', sealPkiMaterial(next, secrets));
    await sql`alter table pki_material enable trigger pki_material_changed`.execute(handle.db);
    // Nothing was announced: B still uses what it had (checked after a round trip through the database).
    await sql`select 1`.execute(handle.db);
    expect(b.pki.issuing.certificateDer.equals(next.issuing.certificateDer)).toBe(false);
    // B's listening connection is cut, as a database restart or a network failure would.
    const cut = await sql<{ ok: boolean }>`
      select pg_terminate_backend(pid) as ok from pg_stat_activity
      where datname = current_database() and query ilike 'listen sello_changes'`.execute(handle.db);
    expect(cut.rows).toEqual([{ ok: true }]);
    await expect.poll(() => b.pki.issuing.certificateDer.equals(next.issuing.certificateDer)).toBe(true);
    expect(warnings.some((w) => w.startsWith('not hearing of PKI changes'))).toBe(true);
  });
});

describe('accounts, API keys and templates across processes', () => {
  let s: TestServer;
  let second: Awaited<ReturnType<typeof buildApp>>;
  let viaSecond: (creds: { webId: string; apiKey: string }) => SelloClient;
  beforeAll(async () => {
    s = await startTestServer();
    // A second application on the same database, as a second `sello api` process.
    second = await buildApp(s.deps, { logStream: { write: () => true } as unknown as NodeJS.WritableStream });
    await second.listen({ port: 0, host: '127.0.0.1' });
    const addr = second.server.address();
    const baseUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    viaSecond = (creds) => new SelloClient({ baseUrl, ...creds });
  });
  afterAll(async () => {
    await second?.close();
    await s?.close();
  });

  it('a key rotated elsewhere is the key the second process accepts', async () => {
    const { creds } = await s.newAccount('Rotating');
    expect((await viaSecond(creds).raw('GET', '/api/account')).status).toBe(200);
    // Two rotations (the command line, another process): the first key is no longer active.
    await rotateKey(s.deps, { webId: creds.webId });
    const newest = await rotateKey(s.deps, { webId: creds.webId });
    expect((await viaSecond(creds).raw('GET', '/api/account')).status).toBe(401);
    expect((await viaSecond(newest).raw('GET', '/api/account')).status).toBe(200);
  });

  it('serves the certificates of PKI material another process stored', async () => {
    const following = followPkiChanges({ connectionString: s.connectionString, responder: s.deps.pki, warn: () => {} });
    try {
      await following.ready;
      const next = await generateServicePki({ organization: 'Stored elsewhere', baseUrl: BASE, now: new Date(Date.now() - DAY) });
      await replacePkiMaterial(s.deps.db, 'operator', sealPkiMaterial(next, s.deps.secrets));
      await expect
        .poll(async () => (await fetch(`${s.baseUrl}/pki/ca.pem`)).text())
        .toBe(derToPem(next.root.certificateDer, 'CERTIFICATE'));
      const issuing = Buffer.from(await (await fetch(`${s.baseUrl}/pki/issuing.cer`)).arrayBuffer());
      expect(issuing.equals(next.issuing.certificateDer)).toBe(true);
    } finally {
      await following.stop();
    }
  });

  it('an account updated elsewhere answers with its new name', async () => {
    const { creds } = await s.newAccount('Before');
    expect((await viaSecond(creds).getAccount()).name).toBe('Before');
    await updateAccount(s.deps, { webId: creds.webId, name: 'After' });
    expect((await viaSecond(creds).getAccount()).name).toBe('After');
  });

  it('a template saved through one process generates through the other, and so does its replacement', async () => {
    const save = (text: string) =>
      s.client.request('POST', '/developers/template/save', {
        template_type: 'pdfmake',
        template_name: 'shared',
        template_data: { content: [{ text }] },
      });
    await save('First {{one}}');
    const other = viaSecond(s.creds);
    // A document generated through the other process, with no values: the warnings name the fields the stored template declares.
    const warningsOf = async () =>
      (
        await other.createDocument({
          template: { title: 'shared' },
          stickers: [{ authority: 'EMAIL_LINK', data: 'signer@example.com', page: 0, rect: { lx: 40, ly: 40, tx: 200, ty: 90 } }],
        })
      ).warnings;
    expect(await warningsOf()).toEqual(['fields.one: declared by the template but not sent; left empty']);
    await save('Second {{two}}');
    expect(await warningsOf()).toEqual(['fields.two: declared by the template but not sent; left empty']);
  });
});

/** An OCSP request about the issuing CA's own certificate (any serial is answered, known or not). */
async function ocspRequestFor(m: PkiMaterial): Promise<Buffer> {
  const issuer = pkijs.Certificate.fromBER(new Uint8Array(m.issuing.certificateDer));
  const req = new pkijs.OCSPRequest();
  await req.createForCertificate(issuer, { hashAlgorithm: 'SHA-256', issuerCertificate: issuer });
  return Buffer.from(req.toSchema(true).toBER(false));
}

/** The certificates an OCSP response carries (the responder's). */
function responderCertificates(der: Uint8Array): Buffer[] {
  const response = pkijs.OCSPResponse.fromBER(new Uint8Array(der));
  const basic = pkijs.BasicOCSPResponse.fromBER(new Uint8Array(response.responseBytes!.response.valueBlock.valueHexView));
  return (basic.certs ?? []).map((c) => Buffer.from((c as pkijs.Certificate).toSchema().toBER(false)));
}
