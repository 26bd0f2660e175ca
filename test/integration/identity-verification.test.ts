// Identity verification before signing, through the API: a signer asked for it cannot sign until
// they sent their identity document (front, back) and a selfie and a person of the account
// approved the review; a rejected one cannot sign at all. Events, history, the report, the
// `verifications` piece, the images sealed at rest and deleted after the retention period, and the
// refusals (bad images, another account's review).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/domain/accounts/update-account.js';
import { addPackage } from '../../src/domain/packages/manage-packages.js';
import { sweepIdentityEvidence } from '../../src/domain/identity/sweep-evidence.js';
import { apiError } from '../helpers/api-error.js';
import { testPng } from '../helpers/images.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { history, notifications } from '../helpers/universal-checks.js';

let s: TestServer;
let pdf: string;
let offsetMs = 0;
const FRONT = testPng(1200, 760, [210, 190, 160]);
const BACK = testPng(1200, 760, [160, 190, 210]);
const SELFIE = testPng(720, 960, [230, 200, 180]);

beforeAll(async () => {
  s = await startTestServer({ clock: { now: () => new Date(Date.now() + offsetMs) } });
  pdf = (await makePdf([A4])).toString('base64');
});
afterAll(() => s?.close());

async function call(path: string, body?: unknown) {
  const res = await fetch(s.baseUrl + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const box = (i: number) => ({ page: 0, rect: { lx: 40 + i * 260, ly: 60, tx: 240 + i * 260, ty: 130 } });
const sign = (token: string) => call(`/sign/api/${token}/sign`, { signature: { type: 'typed', text: 'Ana García' }, consent: true });
const send = (token: string, kind: string, image: Buffer) =>
  call(`/sign/api/${token}/identity/${kind}`, { image: image.toString('base64') });

/** A document whose first signer must verify their identity (the second need not). */
async function verifyingDocument() {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Crédito',
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', requireIdentityVerification: true, ...box(0) },
      { authority: 'EMAIL_LINK', data: 'bruno@example.com', name: 'Bruno Díaz', ...box(1) },
    ],
  });
  return { doc, ana: doc.stickers[0].signer_url.split('/sign/')[1], bruno: doc.stickers[1].signer_url.split('/sign/')[1] };
}

async function submitAll(token: string) {
  for (const [kind, image] of [
    ['front', FRONT],
    ['back', BACK],
    ['selfie', SELFIE],
  ] as const) {
    expect((await send(token, kind, image)).status).toBe(200);
  }
  const submitted = await call(`/sign/api/${token}/identity/submit`, {});
  expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
  return submitted.json;
}

const reviewOf = async (ticket: string) =>
  (
    await s.client.request<{ reviews: { id: string; document_ticket: string; status: string }[] }>('GET', '/api/identity/reviews')
  ).reviews.find((r) => r.document_ticket === ticket)!;

describe('identity verification', () => {
  it('approved: the signer sends the three images, the review shows them, approval lets them sign', async () => {
    const { doc, ana, bruno } = await verifyingDocument();
    const info = await call(`/sign/api/${ana}`);
    expect(info.json.signer.identity).toEqual({
      required: true,
      status: 'verification_pending',
      captured: [],
      submitted: false,
      provider: null,
      reason: null,
      retry: false,
      documents: 1,
    });
    expect((await call(`/sign/api/${bruno}`)).json.signer.identity.required).toBe(false);
    const listed = (await s.client.listDocuments()).documents.find((d) => d.document_ticket === doc.document_ticket)!;
    expect(listed.signers.map((x) => x.status)).toEqual(['verification_pending', 'viewed']);

    const early = await sign(ana);
    expect([early.status, early.json.error.code]).toEqual([409, 'IDENTITY_VERIFICATION_REQUIRED']);
    const incomplete = await call(`/sign/api/${ana}/identity/submit`, {});
    expect([incomplete.status, incomplete.json.error.details]).toEqual([409, { missing: ['front', 'back', 'selfie'] }]);

    const state = await submitAll(ana);
    // Submitted: the images belong to the review now; none is waiting to be submitted.
    expect(state).toEqual({
      required: true,
      status: 'verification_pending',
      captured: [],
      submitted: true,
      provider: null,
      reason: null,
      retry: false,
      documents: 1,
    });
    expect((await sign(ana)).json.error.code).toBe('IDENTITY_VERIFICATION_REQUIRED');

    // The images are sealed at rest: no stored byte sequence is the image.
    const stored = await sql<{ sealed: Buffer }>`select e.sealed from identity_evidence e join signers s on s.id = e.signer_row_id
      where s.signer_id = ${doc.stickers[0].signer_id}`.execute(s.deps.db);
    expect(stored.rows).toHaveLength(3);
    for (const r of stored.rows) {
      expect(r.sealed.includes(FRONT.subarray(0, 64))).toBe(false);
      expect(r.sealed.includes(Buffer.from(FRONT.toString('base64').slice(0, 64)))).toBe(false);
    }

    const review = await reviewOf(doc.document_ticket);
    expect(review.status).toBe('pending');
    const detail = await s.client.request<{ evidence: { kind: string; image: string; width: number; height: number }[]; checks: unknown }>(
      'GET',
      `/api/identity/reviews/${review.id}`,
    );
    expect(detail.evidence.map((e) => [e.kind, e.width, e.height])).toEqual([
      ['back', 1200, 760],
      ['front', 1200, 760],
      ['selfie', 720, 960],
    ]);
    expect(Buffer.from(detail.evidence.find((e) => e.kind === 'front')!.image, 'base64').equals(FRONT)).toBe(true);

    const decided = await s.client.request<{ status: string; decided_at: string }>('POST', `/api/identity/reviews/${review.id}`, {
      decision: 'approve',
    });
    expect(decided.status).toBe('approved');
    expect(await notifications(s, doc.document_ticket, 'identity_verification_passed')).toEqual([
      {
        signer: expect.objectContaining({ signer_id: doc.stickers[0].signer_id, email: 'ana@example.com' }),
        provider: 'manual',
        reason: null,
      },
    ]);
    expect((await call(`/sign/api/${ana}`)).json.signer.identity.status).toBe('verified');
    const signed = await sign(ana);
    expect(signed.status, JSON.stringify(signed.json)).toBe(200);
    const actions = (await history(s, doc.document_ticket)).map((h) => h.action);
    expect(actions).toEqual(expect.arrayContaining(['identity_submitted', 'identity_verified', 'signed']));
    expect(actions.indexOf('identity_verified')).toBeLessThan(actions.indexOf('signed'));
    const report = await s.client.signatureReport(doc.document_ticket);
    expect(report.firmas[0].downstreamData.identityVerification).toEqual({
      method: 'manual_review',
      provider: 'manual',
      reviewId: review.id,
      verifiedAt: decided.decided_at,
    });
    const again = await apiError(s.client.request('POST', `/api/identity/reviews/${review.id}`, { decision: 'reject', reason: 'late' }));
    expect([again.status, again.code]).toEqual([409, 'INVALID_STATE']);
  });

  it('the signer page names each signer’s state as the listing does: verification pending, verified, signed', async () => {
    const { doc, ana, bruno } = await verifyingDocument();
    const listed = async () =>
      (await s.client.listDocuments()).documents.find((d) => d.document_ticket === doc.document_ticket)!.signers.map((x) => x.status);
    const page = async (token: string) => {
      const info = (await call(`/sign/api/${token}`)).json;
      return { own: info.signer.status, all: info.signers.map((x: { status: string }) => x.status) };
    };
    expect(await page(ana)).toEqual({ own: 'verification_pending', all: ['verification_pending', 'pending'] });
    expect(await page(bruno)).toEqual({ own: 'viewed', all: ['verification_pending', 'viewed'] });
    expect(await listed()).toEqual(['verification_pending', 'viewed']);
    await submitAll(ana);
    await s.client.request('POST', `/api/identity/reviews/${(await reviewOf(doc.document_ticket)).id}`, { decision: 'approve' });
    expect(await page(ana)).toEqual({ own: 'verified', all: ['verified', 'viewed'] });
    expect(await listed()).toEqual(['verified', 'viewed']);
    expect((await sign(ana)).status).toBe(200);
    expect(await page(bruno)).toEqual({ own: 'viewed', all: ['signed', 'viewed'] });
    expect(await listed()).toEqual(['signed', 'viewed']);
  });

  it('rejected: the signer cannot sign; the reason reaches the event and the history', async () => {
    const { doc, ana } = await verifyingDocument();
    await submitAll(ana);
    const review = await reviewOf(doc.document_ticket);
    const noReason = await apiError(s.client.request('POST', `/api/identity/reviews/${review.id}`, { decision: 'reject' }));
    expect([noReason.status, noReason.code, noReason.message]).toEqual([400, 'INVALID_INPUT', expect.stringContaining('reason')]);
    await s.client.request('POST', `/api/identity/reviews/${review.id}`, {
      decision: 'reject',
      reason: 'La selfie no coincide con la foto',
    });
    expect(await notifications(s, doc.document_ticket, 'identity_verification_failed')).toEqual([
      expect.objectContaining({ provider: 'manual', reason: 'La selfie no coincide con la foto' }),
    ]);
    const refused = await sign(ana);
    expect([refused.status, refused.json.error.code]).toEqual([409, 'IDENTITY_VERIFICATION_FAILED']);
    expect((await send(ana, 'front', FRONT)).json.error.code).toBe('INVALID_STATE');
    const listed = (await s.client.listDocuments()).documents.find((d) => d.document_ticket === doc.document_ticket)!;
    expect(listed.signers[0].status).toBe('verification_failed');
  });

  it('an account that allows a retry lets a rejected signer try again, once per retry, each review with its own images', async () => {
    await updateAccount(s.deps, { webId: s.creds.webId, identityRetries: 1 });
    try {
      const { doc, ana } = await verifyingDocument();
      await submitAll(ana);
      const first = await reviewOf(doc.document_ticket);
      await s.client.decideIdentityReview(first.id, { decision: 'reject', reason: 'Foto borrosa' });
      expect((await call(`/sign/api/${ana}`)).json.signer.identity).toMatchObject({
        status: 'verification_failed',
        reason: 'Foto borrosa',
        retry: true,
        submitted: false,
        captured: [],
      });
      const sharper = testPng(1600, 1000, [120, 140, 160]);
      expect((await send(ana, 'front', sharper)).status).toBe(200);
      expect((await send(ana, 'back', BACK)).status).toBe(200);
      expect((await send(ana, 'selfie', SELFIE)).status).toBe(200);
      expect((await call(`/sign/api/${ana}/identity/submit`, {})).json).toMatchObject({ status: 'verification_pending', submitted: true });
      const second = (await s.client.listIdentityReviews({ status: 'pending' })).reviews.find(
        (r) => r.document_ticket === doc.document_ticket,
      )!;
      expect(second.id).not.toBe(first.id);
      // Each review shows the images of its own attempt.
      const frontOf = async (id: string) => (await s.client.getIdentityReview(id)).evidence.find((e) => e.kind === 'front')!;
      expect((await frontOf(first.id)).width).toBe(1200);
      expect((await frontOf(second.id)).width).toBe(1600);
      await s.client.decideIdentityReview(second.id, { decision: 'reject', reason: 'No coincide' });
      // One retry only: no third attempt.
      expect((await call(`/sign/api/${ana}`)).json.signer.identity).toMatchObject({
        status: 'verification_failed',
        retry: false,
        submitted: true,
      });
      expect((await send(ana, 'front', FRONT)).json.error.code).toBe('INVALID_STATE');
      expect((await sign(ana)).json.error.code).toBe('IDENTITY_VERIFICATION_FAILED');
    } finally {
      await updateAccount(s.deps, { webId: s.creds.webId, identityRetries: 0 });
    }
  });

  it('every signer with the top-level flag (documents of a set: set-identity.test.ts); a flag that is not a boolean is named', async () => {
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      requireIdentityVerification: true,
      stickers: [{ authority: 'EMAIL_LINK', data: 'carla@example.com', ...box(0) }],
    });
    expect((await call(`/sign/api/${doc.stickers[0].signer_url.split('/sign/')[1]}`)).json.signer.identity.required).toBe(true);
    // Acted on, so not reported as an ignored key.
    expect(doc.warnings).toEqual([]);
    const bad = await apiError(
      s.client.createDocument({
        b64_doc: pdf,
        stickers: [{ authority: 'EMAIL_LINK', data: 'x@example.com', requireIdentityVerification: 'yes', ...box(0) } as never],
      }),
    );
    expect(bad.status).toBe(400);
    expect(bad.message).toContain('requireIdentityVerification');
  });

  it('refuses what is not a usable image, naming the field, and changes nothing', async () => {
    const { ana } = await verifyingDocument();
    const notImage = await send(ana, 'front', Buffer.from('%PDF-1.7 not an image at all'));
    expect([notImage.status, notImage.json.error?.details?.field], JSON.stringify(notImage.json)).toEqual([400, 'image']);
    const tiny = await send(ana, 'front', testPng(200, 150));
    expect([tiny.status, tiny.json.error.message]).toEqual([400, expect.stringContaining('too small')]);
    const unknownKind = await send(ana, 'passport', FRONT);
    expect([unknownKind.status, unknownKind.json.error.details.field]).toEqual([400, 'kind']);
    const huge = await call(`/sign/api/${ana}/identity/selfie`, { image: Buffer.alloc(6 * 1024 * 1024, 1).toString('base64') });
    expect([huge.status, huge.json.error.details.field]).toEqual([413, 'image']);
    expect((await call(`/sign/api/${ana}`)).json.signer.identity.captured).toEqual([]);
  });

  it('a review of another account is unknown; without a verifications piece nothing is submitted', async () => {
    const { doc, ana } = await verifyingDocument();
    await submitAll(ana);
    const review = await reviewOf(doc.document_ticket);
    const other = await s.newAccount('Otra');
    // One at a time: a second refusal must not be left unawaited while the first is checked.
    for (const attempt of [
      () => other.client.request('GET', `/api/identity/reviews/${review.id}`),
      () => other.client.request('POST', `/api/identity/reviews/${review.id}`, { decision: 'approve' }),
    ]) {
      const e = await apiError(attempt());
      expect([e.status, e.code]).toEqual([404, 'REVIEW_NOT_FOUND']);
    }
    expect((await other.client.request<{ reviews: unknown[] }>('GET', '/api/identity/reviews')).reviews).toEqual([]);

    await addPackage(s.deps, { webId: other.creds.webId, kind: 'verifications', pieces: 1, days: 30 });
    const theirs = await other.client.createDocument({
      b64_doc: pdf,
      requireIdentityVerification: true,
      stickers: [{ authority: 'EMAIL_LINK', data: 'd@example.com', ...box(0) }],
    });
    const t1 = theirs.stickers[0].signer_url.split('/sign/')[1];
    await submitAll(t1);
    const second = await other.client.createDocument({
      b64_doc: pdf,
      requireIdentityVerification: true,
      stickers: [{ authority: 'EMAIL_LINK', data: 'e@example.com', ...box(0) }],
    });
    const t2 = second.stickers[0].signer_url.split('/sign/')[1];
    for (const [kind, image] of [
      ['front', FRONT],
      ['back', BACK],
      ['selfie', SELFIE],
    ] as const) {
      await send(t2, kind, image);
    }
    const exhausted = await call(`/sign/api/${t2}/identity/submit`, {});
    expect([exhausted.status, exhausted.json.error.code, exhausted.json.error.details]).toEqual([
      402,
      'PACKAGE_EXHAUSTED',
      { kind: 'verifications' },
    ]);
    expect((await call(`/sign/api/${t2}`)).json.signer.identity.submitted).toBe(false);
  });

  it('deletes the images of decided reviews after the retention period, keeping the review', async () => {
    const { doc, ana } = await verifyingDocument();
    await submitAll(ana);
    const review = await reviewOf(doc.document_ticket);
    await s.client.request('POST', `/api/identity/reviews/${review.id}`, { decision: 'approve' });
    expect((await sweepIdentityEvidence(s.deps)).reviews).toBe(0); // not yet: kept for the retention period
    offsetMs = (s.deps.config.identity.evidenceDays + 1) * 86_400_000;
    try {
      expect((await sweepIdentityEvidence(s.deps)).reviews).toBeGreaterThanOrEqual(1);
      const detail = await s.client.request<{ evidence: unknown[]; evidence_deleted_at: string | null; status: string }>(
        'GET',
        `/api/identity/reviews/${review.id}`,
      );
      expect(detail).toMatchObject({ evidence: [], status: 'approved' });
      expect(detail.evidence_deleted_at).not.toBeNull();
    } finally {
      offsetMs = 0;
    }
  });

  it('deletes images sent but never submitted once they are as old as the retention period', async () => {
    const ana = (await verifyingDocument()).ana;
    const later = (await verifyingDocument()).ana;
    const captured = async (token: string) => (await call(`/sign/api/${token}`)).json.signer.identity.captured;
    expect((await send(ana, 'front', FRONT)).status).toBe(200);
    expect((await send(ana, 'back', BACK)).status).toBe(200);
    expect((await sweepIdentityEvidence(s.deps)).drafts).toBe(0); // not yet
    expect(await captured(ana)).toEqual(['back', 'front']);
    offsetMs = (s.deps.config.identity.evidenceDays + 1) * 86_400_000;
    try {
      // Sent at the moved clock: as new as it gets, kept.
      expect((await send(later, 'selfie', SELFIE)).status).toBe(200);
      expect((await sweepIdentityEvidence(s.deps)).drafts).toBeGreaterThanOrEqual(2);
      expect(await captured(ana)).toEqual([]);
      expect(await captured(later)).toEqual(['selfie']);
      // The signer starts again: the step asks for every image.
      expect((await call(`/sign/api/${ana}/identity/submit`, {})).json.error.details).toEqual({ missing: ['front', 'back', 'selfie'] });
    } finally {
      offsetMs = 0;
    }
  });
});
