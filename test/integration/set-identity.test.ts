// Identity verification in document sets: a person asked to verify on any of their documents of a
// set verifies once, through the set link (or any of their document links), before signing any of
// them. One review per person and set shows the set and the documents it covers; its decision
// (by a person of the account, the external provider, or the built-in checks) applies to each of
// those documents: the signer rows, one event and one history entry per document, the same proof
// in each report. Rejected, they cannot sign; retries as for a document of its own.
import { createHmac } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identitySettings } from '../../src/config-identity.js';
import { updateAccount } from '../../src/domain/accounts/update-account.js';
import { apiError } from '../helpers/api-error.js';
import { launchChromium } from '../helpers/browser.js';
import { type CardImages, renderIdCard } from '../helpers/id-card.js';
import { type SampleFaces, sampleFaces } from '../helpers/face-samples.js';
import { testPng } from '../helpers/images.js';
import { createVerifyingSet } from '../helpers/identity-sets.js';
import { jobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { history, notifications } from '../helpers/universal-checks.js';
import { pdfsig, signaturePng } from '../helpers/validators.js';

const SECRET = 'provider-callback-secret';
/**
 * How long the built-in checks job may take before the test fails: the limits of the reads it makes
 * in the image jail (the quality of three photographs, the zone of up to two sides, the faces on
 * the card and the selfie), with the test server's settings (the defaults). On a busy machine the
 * job takes most of a minute; only a read the jail fails to stop goes past this.
 */
const checks = identitySettings({}, []).checks;
const CHECKS_JOB_MS = 3 * checks.qualityTimeoutMs + 2 * checks.ocrTimeoutMs + 2 * checks.faceTimeoutMs;
const FRONT = testPng(1200, 760, [210, 190, 160]);
const BACK = testPng(1200, 760, [160, 190, 210]);
const SELFIE = testPng(720, 960, [230, 200, 180]);

let s: TestServer;
let provider: Server;
let providerUrl = '';
const sessions: { reference: string; return_url: string; signer: { name: string | null } }[] = [];
let pdf: string;
let rootPem: string;

beforeAll(async () => {
  provider = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      sessions.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ id: `ses_${sessions.length}`, url: `${providerUrl}/s/${sessions.length}` }));
    });
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  providerUrl = `http://127.0.0.1:${(provider.address() as { port: number }).port}`;
  s = await startTestServer({
    env: {
      SELLO_IDENTITY_PROVIDER_URL: `${providerUrl}/v1`,
      SELLO_IDENTITY_PROVIDER_KEY: 'provider-api-key',
      SELLO_IDENTITY_PROVIDER_SECRET: SECRET,
      SELLO_IDENTITY_PROVIDER_NAME: 'VerificaMX',
    },
  });
  pdf = (await makePdf([A4])).toString('base64');
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
});
afterAll(async () => {
  await s?.close();
  await new Promise((r) => provider?.close(r));
});

async function call(path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(s.baseUrl + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const box = (i: number) => ({ page: 0, rect: { lx: 40 + i * 260, ly: 60, tx: 240 + i * 260, ty: 130 } });
const drawn = { signature: { type: 'drawn', image: `data:image/png;base64,${signaturePng().toString('base64')}` }, consent: true };
const setPath = (url: string) => url.split('/sign/set/')[1];
const _docPath = (url: string) => url.split('/sign/')[1];
const sendSet = (token: string, kind: string, image: Buffer) =>
  call(`/sign/api/set/${token}/identity/${kind}`, { image: image.toString('base64') });
const sendDoc = (token: string, kind: string, image: Buffer) =>
  call(`/sign/api/${token}/identity/${kind}`, { image: image.toString('base64') });

const verifyingSet = () => createVerifyingSet(s.client, pdf, { label: 'Alta', anaName: 'Ana María García López' });

async function submitAll(token: string) {
  for (const [kind, image] of [
    ['front', FRONT],
    ['back', BACK],
    ['selfie', SELFIE],
  ] as const) {
    expect((await sendSet(token, kind, image)).status).toBe(200);
  }
  const submitted = await call(`/sign/api/set/${token}/identity/submit`, {});
  expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
  return submitted.json;
}

const reviewsOfSet = async (uuid: string) => (await s.client.listIdentityReviews()).reviews.filter((r) => r.document_set?.uuid === uuid);

async function signerStatuses(tickets: string[]) {
  const listed = (await s.client.listDocuments()).documents;
  return tickets.map((t) => listed.find((d) => d.document_ticket === t)!.signers.map((x) => x.status));
}

describe('identity verification in a document set', () => {
  it('one capture and one review for all the documents of the person; approval lets them sign the set', async () => {
    const set = await verifyingSet();
    const info = await call(`/sign/api/set/${set.ana}`);
    expect(info.json.signer.identity).toEqual({
      required: true,
      status: 'verification_pending',
      captured: [],
      submitted: false,
      provider: 'VerificaMX',
      reason: null,
      retry: false,
      documents: 2,
    });
    expect((await call(`/sign/api/set/${set.bruno}`)).json.signer.identity.required).toBe(false);
    // Asked on the first document only, Ana waits on both: she signs the set in one act.
    expect(await signerStatuses(set.tickets)).toEqual([
      ['verification_pending', 'viewed'],
      ['verification_pending', 'viewed'],
    ]);

    const early = await call(`/sign/api/set/${set.ana}/sign`, drawn);
    expect([early.status, early.json.error.code]).toEqual([409, 'IDENTITY_VERIFICATION_REQUIRED']);
    const byDocument = await call(`/sign/api/${set.anaOnSecond}/sign`, drawn);
    expect([byDocument.status, byDocument.json.error.code]).toEqual([409, 'IDENTITY_VERIFICATION_REQUIRED']);
    const incomplete = await call(`/sign/api/set/${set.ana}/identity/submit`, {});
    expect([incomplete.status, incomplete.json.error.details]).toEqual([409, { missing: ['front', 'back', 'selfie'] }]);
    const badKind = await sendSet(set.ana, 'passport', FRONT);
    expect([badKind.status, badKind.json.error.details.field]).toEqual([400, 'kind']);

    // The person's images are the same whichever of their links sends them.
    expect((await sendSet(set.ana, 'front', FRONT)).json.captured).toEqual(['front']);
    expect((await sendDoc(set.anaOnSecond, 'back', BACK)).json.captured).toEqual(['back', 'front']);
    expect((await sendSet(set.ana, 'selfie', SELFIE)).json.captured).toEqual(['back', 'front', 'selfie']);
    const submitted = await call(`/sign/api/set/${set.ana}/identity/submit`, {});
    expect(submitted.json).toMatchObject({ status: 'verification_pending', submitted: true, captured: [] });
    // Her own link on the second document speaks of the same verification, for both documents.
    expect((await call(`/sign/api/${set.anaOnSecond}`)).json.signer.identity).toMatchObject({ submitted: true, documents: 2 });
    const twice = await call(`/sign/api/${set.anaOnSecond}/identity/submit`, {});
    expect([twice.status, twice.json.error.code]).toEqual([409, 'INVALID_STATE']);
    const pieces = await sql<{ n: number }>`select count(*)::int as n from consumption c join documents d on d.id = c.document_id
      where c.kind = 'verifications' and d.ticket = any(${set.tickets}::text[])`.execute(s.deps.db);
    expect(pieces.rows[0].n).toBe(1);

    // One review, showing the set and what its decision applies to.
    const reviews = await reviewsOfSet(set.uuid);
    expect(reviews).toHaveLength(1);
    const [review] = reviews;
    expect(review).toMatchObject({
      status: 'pending',
      document_ticket: set.tickets[0],
      signer: { name: 'Ana María García López' },
      document_set: {
        uuid: set.uuid,
        name: set.name,
        documents: set.tickets.map((t, i) => ({ document_ticket: t, document_name: expect.stringContaining(`-${i + 1}`) })),
      },
    });
    const detail = await s.client.getIdentityReview(review.id);
    expect(detail.document_set?.documents.map((d) => d.document_ticket)).toEqual(set.tickets);
    expect(detail.evidence.map((e) => e.kind)).toEqual(['back', 'front', 'selfie']);

    const decided = await s.client.decideIdentityReview(review.id, { decision: 'approve' });
    expect(decided.document_set?.uuid).toBe(set.uuid);
    for (const [i, ticket] of set.tickets.entries()) {
      expect(await notifications(s, ticket, 'identity_verification_passed')).toEqual([
        {
          signer: expect.objectContaining({ signer_id: set.docs[i].stickers[0].signer_id, email: expect.stringContaining('ana.') }),
          provider: 'manual',
          reason: null,
        },
      ]);
      expect((await history(s, ticket)).map((h) => h.action)).toEqual(expect.arrayContaining(['identity_submitted', 'identity_verified']));
    }
    expect((await call(`/sign/api/set/${set.ana}`)).json.signer.identity.status).toBe('verified');

    const signed = await call(`/sign/api/set/${set.ana}/sign`, drawn);
    expect(signed.status, JSON.stringify(signed.json)).toBe(200);
    expect(signed.json.documents.map((d: { signer_status: string }) => d.signer_status)).toEqual(['signed', 'signed']);
    expect((await call(`/sign/api/set/${set.bruno}/sign`, drawn)).json).toMatchObject({ status: 'signed', set_status: 'COMPLETED' });

    const verifiedAt = decided.decided_at;
    for (const ticket of set.tickets) {
      const report = await s.client.signatureReport(ticket);
      expect(report.firmas[0].downstreamData.identityVerification).toEqual({
        method: 'manual_review',
        provider: 'manual',
        reviewId: review.id,
        verifiedAt,
      });
      expect(report.firmas[1].downstreamData.identityVerification).toBeUndefined();
      const actions = (await history(s, ticket)).map((h) => h.action);
      expect(actions.indexOf('identity_verified')).toBeLessThan(actions.indexOf('signed'));
    }
    const second = await s.client.downloadDocument('original', set.tickets[1]);
    const checked = await pdfsig(second.bytes, rootPem);
    expect(checked.signatures, checked.output).toHaveLength(2);
    for (const sig of checked.signatures) {
      expect(sig).toMatchObject({ valid: true, trusted: true });
    }
  });

  it('rejected: the person cannot sign any document of the set; each document gets the event', async () => {
    const set = await verifyingSet();
    await submitAll(set.ana);
    const [review] = await reviewsOfSet(set.uuid);
    await s.client.decideIdentityReview(review.id, { decision: 'reject', reason: 'La selfie no coincide con la foto' });
    for (const ticket of set.tickets) {
      expect(await notifications(s, ticket, 'identity_verification_failed')).toEqual([
        expect.objectContaining({ provider: 'manual', reason: 'La selfie no coincide con la foto' }),
      ]);
    }
    expect((await call(`/sign/api/set/${set.ana}`)).json.signer.identity).toMatchObject({
      status: 'verification_failed',
      reason: 'La selfie no coincide con la foto',
      retry: false,
      submitted: true,
    });
    const refused = await call(`/sign/api/set/${set.ana}/sign`, drawn);
    expect([refused.status, refused.json.error.code]).toEqual([409, 'IDENTITY_VERIFICATION_FAILED']);
    expect((await call(`/sign/api/${set.anaOnSecond}/sign`, drawn)).json.error.code).toBe('IDENTITY_VERIFICATION_FAILED');
    expect((await sendSet(set.ana, 'front', FRONT)).json.error.code).toBe('INVALID_STATE');
    expect((await signerStatuses(set.tickets)).map(([ana]) => ana)).toEqual(['verification_failed', 'verification_failed']);
    // Bruno was not asked: he signs his documents.
    expect((await call(`/sign/api/set/${set.bruno}/sign`, drawn)).status).toBe(200);
  });

  it('an account that allows a retry lets the person try again once, with a new review for the set', async () => {
    await updateAccount(s.deps, { webId: s.creds.webId, identityRetries: 1 });
    try {
      const set = await verifyingSet();
      await submitAll(set.ana);
      const [first] = await reviewsOfSet(set.uuid);
      await s.client.decideIdentityReview(first.id, { decision: 'reject', reason: 'Foto borrosa' });
      expect((await call(`/sign/api/set/${set.ana}`)).json.signer.identity).toMatchObject({
        status: 'verification_failed',
        retry: true,
        submitted: false,
      });
      expect((await call(`/sign/api/set/${set.ana}/sign`, drawn)).json.error.code).toBe('IDENTITY_VERIFICATION_FAILED');
      await submitAll(set.ana);
      expect((await signerStatuses(set.tickets)).map(([ana]) => ana)).toEqual(['verification_pending', 'verification_pending']);
      const pending = (await reviewsOfSet(set.uuid)).filter((r) => r.status === 'pending');
      expect(pending).toHaveLength(1);
      expect(pending[0].id).not.toBe(first.id);
      await s.client.decideIdentityReview(pending[0].id, { decision: 'approve' });
      expect((await call(`/sign/api/set/${set.ana}/sign`, drawn)).status).toBe(200);
    } finally {
      await updateAccount(s.deps, { webId: s.creds.webId, identityRetries: 0 });
    }
  });

  it('a set review of another account is unknown; the set link refuses a set that cannot be signed', async () => {
    const set = await verifyingSet();
    await submitAll(set.ana);
    const [review] = await reviewsOfSet(set.uuid);
    const other = await s.newAccount('Otra');
    // One at a time: a second refusal must not be left unawaited while the first is checked.
    for (const attempt of [
      () => other.client.request('GET', `/api/identity/reviews/${review.id}`),
      () => other.client.request('POST', `/api/identity/reviews/${review.id}`, { decision: 'approve' }),
    ]) {
      const e = await apiError(attempt());
      expect([e.status, e.code]).toEqual([404, 'REVIEW_NOT_FOUND']);
    }
    expect((await other.client.listIdentityReviews()).reviews).toEqual([]);
    expect((await s.client.getIdentityReview(review.id)).status).toBe('pending');

    const unknown = await sendSet('x'.repeat(43), 'front', FRONT);
    expect([unknown.status, unknown.json.error.code]).toEqual([404, 'SIGNING_LINK_INVALID']);
    const rejected = await verifyingSet();
    expect((await call(`/sign/api/set/${rejected.bruno}/reject`, { reason: 'No estoy de acuerdo' })).status).toBe(200);
    const closed = await sendSet(rejected.ana, 'front', FRONT);
    expect([closed.status, closed.json.error.code]).toEqual([409, 'DOCUMENT_NOT_SIGNABLE']);
  });

  it('a person named on a later document only: the set review names them (the built-in checks compare that name)', async () => {
    const set = await s.client.createDocumentSet({ name: 'Sin nombre' });
    const carla = 'carla.sin-nombre@example.com';
    for (const name of [undefined, 'Carla Méndez Ruiz']) {
      await s.client.createDocument({
        b64_doc: pdf,
        document_set: set.uuid,
        stickers: [{ authority: 'EMAIL_LINK', data: carla, ...(name ? { name } : {}), requireIdentityVerification: true, ...box(0) }],
      });
    }
    const closed = await s.client.closeDocumentSet(set.uuid);
    await submitAll(setPath(closed.signers[0].signer_url));
    const [review] = await reviewsOfSet(set.uuid);
    expect(review.signer).toMatchObject({ name: 'Carla Méndez Ruiz', email: carla });
    expect((await s.client.getIdentityReview(review.id)).signer.name).toBe('Carla Méndez Ruiz');
  });

  it('the external provider decides a set review for each document; it sends the signer back to the set page', async () => {
    const set = await verifyingSet();
    const started = await call(`/sign/api/set/${set.ana}/identity/provider`, {});
    expect(started.status, JSON.stringify(started.json)).toBe(200);
    const session = sessions[sessions.length - 1];
    expect(session.return_url).toBe(`${s.deps.config.publicUrl}/sign/set/${set.ana}`);
    const [review] = await reviewsOfSet(set.uuid);
    expect(review).toMatchObject({ id: session.reference, decided_by: 'provider' });
    const raw = JSON.stringify({ reference: session.reference, outcome: 'approved' });
    const signature = `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;
    expect((await call('/identity/provider/callback', raw, { 'x-sello-signature': signature })).json).toEqual({ status: 'ok', applied: 1 });
    for (const ticket of set.tickets) {
      expect(await notifications(s, ticket, 'identity_verification_passed')).toEqual([
        expect.objectContaining({ provider: 'VerificaMX', reason: null }),
      ]);
    }
    expect((await call(`/sign/api/set/${set.ana}/sign`, drawn)).status).toBe(200);
    const report = await s.client.signatureReport(set.tickets[1]);
    expect(report.firmas[0].downstreamData.identityVerification).toMatchObject({ method: 'provider', reviewId: review.id });
  });

  describe('decided by the built-in checks', () => {
    let card: CardImages;
    let faces: SampleFaces;
    // The photographs are made before the test, as the other identity tests make theirs: Chromium
    // and the face reader take a good part of a minute on a busy machine, and are not under test.
    beforeAll(async () => {
      const browser = await launchChromium();
      try {
        // The portrait and the selfie show the same face: the face check passes too.
        faces = await sampleFaces(s.deps.imageJail, browser);
        const expiry = new Date(Date.now() + 3 * 365 * 86_400_000).toISOString().slice(2, 10).replace(/-/g, '');
        card = await renderIdCard(browser, {
          format: 'TD1',
          person: { surnames: 'GARCIA LOPEZ', given: 'ANA MARIA', birth: '900412', expiry, sex: 'F', documentNumber: 'G08QX7730' },
          printedName: 'Ana María García López',
          portrait: faces.portrait,
        });
      } finally {
        await browser.close();
      }
    });

    it(
      'the built-in checks job approves a set review for each document when every check passed (automatic decision)',
      async () => {
        await updateAccount(s.deps, { webId: s.creds.webId, identityDecision: 'automatic' });
        const jobs = jobRunner(s.connectionString, s.deps);
        try {
          const set = await verifyingSet();
          expect((await sendSet(set.ana, 'front', card.front)).status).toBe(200);
          expect((await sendSet(set.ana, 'back', card.back)).status).toBe(200);
          expect((await sendSet(set.ana, 'selfie', faces.selfies.ana)).status).toBe(200);
          expect((await call(`/sign/api/set/${set.ana}/identity/submit`, {})).status).toBe(200);
          await jobs.runDue();
          const [review] = await reviewsOfSet(set.uuid);
          expect(review, JSON.stringify(review.automatic_checks)).toMatchObject({
            status: 'approved',
            decided_by: 'automatic_checks',
            automatic_checks: { status: 'passed' },
          });
          for (const ticket of set.tickets) {
            expect(await notifications(s, ticket, 'identity_verification_passed')).toEqual([
              expect.objectContaining({ provider: 'automatic_checks', reason: null }),
            ]);
          }
          expect((await call(`/sign/api/set/${set.ana}/sign`, drawn)).status).toBe(200);
          const report = await s.client.signatureReport(set.tickets[1]);
          expect(report.firmas[0].downstreamData.identityVerification).toMatchObject({ method: 'automatic_checks', reviewId: review.id });
        } finally {
          await jobs.close();
          await updateAccount(s.deps, { webId: s.creds.webId, identityDecision: 'manual' });
        }
      },
      CHECKS_JOB_MS,
    );
  });
});
