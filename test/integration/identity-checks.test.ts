// The built-in identity checks on synthetic identity documents drawn by Chromium: image quality
// refused at capture (blur, glare), the machine-readable zone read by OCR in the image jail with
// its check digits, the name and the expiry date, stored with the review; and the account policy
// that lets the checks approve a review when every one passed (otherwise a person decides). The
// face check: the card's portrait is a face of a sample photograph shipped in the face-api package
// (read from node_modules), the selfie the same face framed otherwise, another person's, or none.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseAccountCommand } from '../../src/cli/account.js';
import { updateAccount } from '../../src/domain/accounts/update-account.js';
import { BLUR_MIN, GLARE_MAX, SELFIE_BLUR_MIN } from '../../src/identity-imaging/image-quality.js';
import { WorkerCrashError } from '../../src/jail/worker-pool.js';
import { launchChromium } from '../helpers/browser.js';
import { FACE_THRESHOLD } from '../../src/domain/identity/face-match.js';
import type { FoundFace } from '../../src/identity-imaging/face-descriptor.js';
import { FACE_NOT_INSTALLED, type IdentityReaders, OCR_NOT_INSTALLED } from '../../src/identity-imaging/optional-readers.js';
import { type CardImages, renderIdCard } from '../helpers/id-card.js';
import { phoneSelfies, sampleFaces } from '../helpers/face-samples.js';
import { blur, glare, noise, readPng, writeJpeg } from '../helpers/image-ops.js';
import { testPng } from '../helpers/images.js';
import { type JobRunner, jobRunner } from '../helpers/jobs.js';
import { checkDigit, type MrzPerson, td1 } from '../helpers/mrz-lines.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { history, notifications } from '../helpers/universal-checks.js';

let s: TestServer;
let jobs: JobRunner;
let pdf: string;
const cards: Record<'valid' | 'expired' | 'passport' | 'badDigit', CardImages> = {} as never;
/** Selfies: Ana's face (the portrait's, framed as a selfie), another person's, and a plain image without a face. */
const selfies: Record<'ana' | 'other' | 'none' | 'phone' | 'phoneBlurred', Buffer> = {
  ana: Buffer.alloc(0),
  other: Buffer.alloc(0),
  phone: Buffer.alloc(0),
  phoneBlurred: Buffer.alloc(0),
  none: testPng(720, 960, [230, 200, 180]),
};
/** yymmdd of the run's clock moved by `days`. */
const yymmdd = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(2, 10).replace(/-/g, '');
const ANA: MrzPerson = {
  surnames: 'GARCIA LOPEZ',
  given: 'ANA MARIA',
  birth: '900412',
  expiry: yymmdd(3 * 365),
  sex: 'F',
  documentNumber: 'G08QX7730',
};

beforeAll(async () => {
  s = await startTestServer();
  jobs = jobRunner(s.connectionString, s.deps);
  pdf = (await makePdf([A4])).toString('base64');
  const browser = await launchChromium();
  try {
    const faces = await sampleFaces(s.deps.imageJail, browser);
    const { portrait } = faces;
    selfies.ana = faces.selfies.ana;
    selfies.other = faces.selfies.other;
    const phone = await phoneSelfies(s.deps.imageJail, browser);
    selfies.phone = phone.phone;
    selfies.phoneBlurred = phone.blurred;
    const printedName = 'Ana María García López';
    cards.valid = await renderIdCard(browser, { format: 'TD1', person: ANA, printedName, rotateDeg: 1.5, portrait });
    cards.expired = await renderIdCard(browser, {
      format: 'TD1',
      person: { ...ANA, expiry: yymmdd(-40) },
      printedName,
      rotateDeg: -1,
      portrait,
    });
    cards.passport = await renderIdCard(browser, {
      format: 'TD3',
      person: ANA,
      printedName,
      portrait,
      widthPx: 2000,
      mrzFont: { family: 'DejaVu Sans Mono', weight: 700 },
    });
    // The document number's check digit printed wrong (a forged or misprinted zone).
    const lines = td1(ANA);
    const wrong = String((Number(checkDigit(ANA.documentNumber)) + 3) % 10);
    cards.badDigit = await renderIdCard(browser, {
      format: 'TD1',
      person: ANA,
      printedName,
      mrzLines: [lines[0].slice(0, 14) + wrong + lines[0].slice(15), lines[1], lines[2]],
      portrait,
    });
  } finally {
    await browser.close();
  }
});
afterAll(async () => {
  await jobs?.close();
  await s?.close();
});

async function call(path: string, body?: unknown) {
  const res = await fetch(s.baseUrl + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}
const send = (token: string, kind: string, image: Buffer) =>
  call(`/sign/api/${token}/identity/${kind}`, { image: image.toString('base64') });

async function verifyingSigner(name: string) {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Crédito',
    stickers: [
      {
        authority: 'EMAIL_LINK',
        data: 'ana@example.com',
        name,
        requireIdentityVerification: true,
        page: 0,
        rect: { lx: 40, ly: 60, tx: 240, ty: 130 },
      },
    ],
  });
  return { doc, token: doc.stickers[0].signer_url.split('/sign/')[1] };
}

interface Review {
  id: string;
  status: string;
  decided_by: string;
  automatic_checks: {
    status: string;
    checks: Record<string, { result: string } & Record<string, unknown>>;
  } | null;
}

/** Sends the card and the selfie, submits, runs the checks job; answers the review as the API shows it. */
async function submitAndCheck(card: CardImages, signerName = 'Ana García', selfie = selfies.ana) {
  const { doc, token } = await verifyingSigner(signerName);
  for (const [kind, image] of [
    ['front', card.front],
    ['back', card.back],
    ['selfie', selfie],
  ] as const) {
    const r = await send(token, kind, image);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
  }
  expect((await call(`/sign/api/${token}/identity/submit`, {})).status).toBe(200);
  const listed = (await s.client.listIdentityReviews({})).reviews.find((r) => r.document_ticket === doc.document_ticket)!;
  expect((await s.client.request<Review>('GET', `/api/identity/reviews/${listed.id}`)).automatic_checks).toBeNull();
  const started = Date.now();
  await jobs.runDue();
  const review = await s.client.request<Review>('GET', `/api/identity/reviews/${listed.id}`);
  return { doc, token, review, ms: Date.now() - started };
}

describe('image quality', () => {
  it('sharp photos pass, blurred ones and reflections do not: the measures behind the thresholds', async () => {
    const front = readPng(cards.valid.front);
    const back = readPng(cards.valid.back);
    const m = (img: Parameters<typeof writeJpeg>[0]) => s.deps.imageJail.measure(writeJpeg(noise(img, 3), 88));
    const figures = {
      front: await m(front),
      back: await m(back),
      frontBlur3: await m(blur(front, 3)),
      backBlur3: await m(blur(back, 3)),
      backGlare: await m(glare(back, 0.5, 0.75, 0.03)),
    };
    console.log(
      Object.entries(figures)
        .map(([k, q]) => `${k}: sharpness ${q.sharpness}, glare ${q.glare}`)
        .join('\n'),
    );
    expect(figures.front.sharpness).toBeGreaterThan(BLUR_MIN * 3);
    expect(figures.back.sharpness).toBeGreaterThan(BLUR_MIN * 3);
    expect(figures.frontBlur3.sharpness).toBeLessThan(BLUR_MIN);
    expect(figures.backBlur3.sharpness).toBeLessThan(BLUR_MIN);
    expect([figures.front.glare, figures.back.glare]).toEqual([0, 0]);
    expect(figures.backGlare.glare).toBeGreaterThan(GLARE_MAX);
  });

  it('capture refuses a blurred or glaring document photo, saying what to fix; a blurred selfie is taken and recorded', async () => {
    const { token } = await verifyingSigner('Ana García');
    const blurred = await send(token, 'front', writeJpeg(blur(readPng(cards.valid.front), 3), 88));
    expect([blurred.status, blurred.json.error.code, blurred.json.error.details]).toEqual([
      422,
      'IMAGE_QUALITY',
      { field: 'image', problem: 'blurry', sharpness: expect.any(Number), minimum: BLUR_MIN },
    ]);
    expect(blurred.json.error.message).toMatch(/^image: .*blurred.*take it again/);
    const glaring = await send(token, 'back', writeJpeg(glare(readPng(cards.valid.back), 0.5, 0.75, 0.03), 88));
    expect([glaring.status, glaring.json.error.details.problem, glaring.json.error.message]).toEqual([
      422,
      'glare',
      expect.stringMatching(/reflection/),
    ]);
    expect((await call(`/sign/api/${token}`)).json.signer.identity.captured).toEqual([]);
    const webp = Buffer.alloc(40);
    webp.write('RIFF', 0, 'latin1');
    webp.write('WEBPVP8 ', 8, 'latin1');
    webp.set([0x9d, 0x01, 0x2a], 23);
    webp.writeUInt16LE(1200, 26);
    webp.writeUInt16LE(800, 28);
    const refusedWebp = await send(token, 'front', webp);
    expect([refusedWebp.status, refusedWebp.json.error.details.field, refusedWebp.json.error.message]).toEqual([
      400,
      'image',
      expect.stringMatching(/WebP.*JPEG or PNG/),
    ]);
    const blurrySelfie = await send(token, 'selfie', writeJpeg(blur(readPng(testPng(720, 960)), 6), 88));
    expect([blurrySelfie.status, blurrySelfie.json.captured]).toEqual([200, ['selfie']]);
  });
});

describe('selfie quality', () => {
  it('a phone-like selfie is judged by the selfie threshold and passes; a strongly blurred one still fails', async () => {
    const phone = await s.deps.imageJail.measure(selfies.phone);
    const blurred = await s.deps.imageJail.measure(selfies.phoneBlurred);
    console.log(`phone-like selfie: sharpness ${phone.sharpness}; strongly blurred: ${blurred.sharpness}`);
    // Under the documents' threshold, as real selfies are: the selfie's own applies.
    expect(phone.sharpness).toBeLessThan(BLUR_MIN);
    expect(phone.sharpness).toBeGreaterThanOrEqual(SELFIE_BLUR_MIN);
    expect(blurred.sharpness).toBeLessThan(SELFIE_BLUR_MIN);

    const passed = (await submitAndCheck(cards.valid, 'Ana García', selfies.phone)).review.automatic_checks!.checks.image_quality;
    expect(passed).toMatchObject({ result: 'pass', images: { selfie: { result: 'pass', sharp: true, sharpness: phone.sharpness } } });
    const failed = (await submitAndCheck(cards.valid, 'Ana García', selfies.phoneBlurred)).review.automatic_checks!.checks.image_quality;
    expect(failed).toMatchObject({ result: 'fail', images: { selfie: { result: 'fail', sharp: false }, front: { result: 'pass' } } });
  });
});

describe('the checks on a submitted review', () => {
  it('manual (the default): the zone is read, name and expiry checked, and the review waits for a person', async () => {
    const { review, ms } = await submitAndCheck(cards.valid);
    console.log(`checks of a TD1 card: ${ms} ms`);
    expect(review.status).toBe('pending');
    expect(review.decided_by).toBe('manual');
    expect(review.automatic_checks).toMatchObject({
      status: 'passed',
      checks: {
        image_quality: { result: 'pass' },
        mrz: { result: 'pass', side: 'back', format: 'TD1', check_digits: 'valid', issuing_state: 'MEX', document_code: 'I' },
        name: { result: 'pass', document_name: 'GARCIA LOPEZ ANA MARIA', signer_name: 'Ana García', missing: [] },
        expiry: { result: 'pass', expires_on: `20${ANA.expiry.slice(0, 2)}-${ANA.expiry.slice(2, 4)}-${ANA.expiry.slice(4)}` },
        face: {
          result: 'pass',
          distance: expect.any(Number),
          threshold: FACE_THRESHOLD,
          front_faces: expect.any(Array),
          selfie_faces: expect.any(Array),
        },
      },
    });
    const face = review.automatic_checks!.checks.face;
    // The selfie's wider view catches a neighbour's face too: the largest is compared.
    expect((face.front_faces as FoundFace[]).length).toBeGreaterThanOrEqual(1);
    expect((face.selfie_faces as FoundFace[]).length).toBeGreaterThanOrEqual(1);
    console.log(`face distance, card portrait against the selfie of the same face: ${face.distance}`);
    expect(face.distance).toBeLessThan(FACE_THRESHOLD);
    // The portrait is on the card's left, in its lower two thirds (test/helpers/id-card.ts).
    const [portraitFace] = face.front_faces as FoundFace[];
    expect(portraitFace.box.x + portraitFace.box.width).toBeLessThan(1600 * 0.45);
    // Biometric data: the descriptors are compared, never stored.
    expect(Object.keys(face).sort()).toEqual(['distance', 'front_faces', 'result', 'selfie_faces', 'threshold']);
    expect(JSON.stringify(review.automatic_checks)).not.toMatch(/descriptor|(-?0\.\d{6,},){8}/);
    // Data the reviewer reads on the images is not copied out of them.
    expect(JSON.stringify(review.automatic_checks)).not.toContain(ANA.documentNumber);
    expect(JSON.stringify(review.automatic_checks)).not.toContain(ANA.birth);
  });

  it('automatic: every check passed, the checks approve; events, history and report name them', async () => {
    expect(parseAccountCommand(['update', '--web-id', 'w', '--identity-decision', 'automatic'])).toMatchObject({
      identityDecision: 'automatic',
    });
    expect(() => parseAccountCommand(['update', '--web-id', 'w', '--identity-decision', 'always'])).toThrow(/manual or automatic/);
    await updateAccount(s.deps, { webId: s.creds.webId, identityDecision: 'automatic' });
    try {
      const { doc, token, review } = await submitAndCheck(cards.passport, 'ANA MARÍA GARCÍA LÓPEZ');
      expect(review).toMatchObject({ status: 'approved', decided_by: 'automatic_checks' });
      expect(review.automatic_checks?.checks.mrz).toMatchObject({ result: 'pass', format: 'TD3', document_code: 'P' });
      // The passport page's portrait is on its front, with the zone.
      expect(review.automatic_checks?.checks.face).toMatchObject({ result: 'pass', threshold: FACE_THRESHOLD });
      expect(await notifications(s, doc.document_ticket, 'identity_verification_passed')).toEqual([
        { signer: expect.objectContaining({ signer_id: doc.stickers[0].signer_id }), provider: 'automatic_checks', reason: null },
      ]);
      const h = await history(s, doc.document_ticket);
      expect(h.map((e) => e.action)).toEqual(expect.arrayContaining(['identity_submitted', 'identity_checked', 'identity_verified']));
      expect(h.find((e) => e.action === 'identity_verified')).toMatchObject({
        details: { provider: 'automatic_checks', review_id: review.id },
      });
      expect(h.find((e) => e.action === 'identity_checked')).toMatchObject({ details: { status: 'passed', review_id: review.id } });
      const signed = await call(`/sign/api/${token}/sign`, { signature: { type: 'typed', text: 'Ana García' }, consent: true });
      expect(signed.status, JSON.stringify(signed.json)).toBe(200);
      const report = await s.client.signatureReport(doc.document_ticket);
      expect(report.firmas[0].downstreamData.identityVerification).toMatchObject({
        method: 'automatic_checks',
        provider: 'automatic_checks',
        reviewId: review.id,
      });
      // The job again (a retry) changes nothing.
      await jobs.runDue();
      expect((await history(s, doc.document_ticket)).filter((e) => e.action === 'identity_checked')).toHaveLength(1);
    } finally {
      await updateAccount(s.deps, { webId: s.creds.webId, identityDecision: 'manual' });
    }
  });

  it('automatic, but the selfie is another person, or shows no face: the face check fails, a person decides', async () => {
    await updateAccount(s.deps, { webId: s.creds.webId, identityDecision: 'automatic' });
    try {
      const other = await submitAndCheck(cards.valid, 'Ana García', selfies.other);
      expect(other.review).toMatchObject({ status: 'pending', decided_by: 'manual', automatic_checks: { status: 'failed' } });
      const face = other.review.automatic_checks!.checks.face;
      console.log(`face distance, card portrait against another person's selfie: ${face.distance}`);
      expect(face).toMatchObject({ result: 'fail', threshold: FACE_THRESHOLD });
      expect(face.distance).toBeGreaterThanOrEqual(FACE_THRESHOLD);
      // Every other check passed: the face alone kept the review for a person.
      expect(['image_quality', 'mrz', 'name', 'expiry'].map((k) => other.review.automatic_checks!.checks[k].result)).toEqual([
        'pass',
        'pass',
        'pass',
        'pass',
      ]);
      expect((await history(s, other.doc.document_ticket)).find((e) => e.action === 'identity_checked')).toMatchObject({
        details: { status: 'failed', not_passed: ['face'] },
      });

      const none = (await submitAndCheck(cards.valid, 'Ana García', selfies.none)).review;
      expect(none).toMatchObject({ status: 'pending', automatic_checks: { status: 'failed' } });
      expect(none.automatic_checks!.checks.face).toEqual({
        result: 'fail',
        threshold: FACE_THRESHOLD,
        front_faces: expect.arrayContaining([expect.objectContaining({ score: expect.any(Number) })]),
        selfie_faces: [],
        problem: 'no face was found on the selfie',
      });
    } finally {
      await updateAccount(s.deps, { webId: s.creds.webId, identityDecision: 'manual' });
    }
  });

  it('automatic, but the face worker cannot start: the other checks are recorded, the face fails, a person decides', async () => {
    await updateAccount(s.deps, { webId: s.creds.webId, identityDecision: 'automatic' });
    // What the pool answers when the worker's module fails to load (here: a model file missing).
    const failed = vi
      .spyOn(s.deps.imageJail, 'readFaces')
      .mockRejectedValue(new WorkerCrashError("the worker failed: ENOENT: no such file or directory, open '/srv/model.json'"));
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const { doc, review } = await submitAndCheck(cards.valid);
      expect(failed).toHaveBeenCalled();
      expect(review).toMatchObject({ status: 'pending', decided_by: 'manual', automatic_checks: { status: 'failed' } });
      expect(review.automatic_checks!.checks.face).toEqual({
        result: 'fail',
        threshold: FACE_THRESHOLD,
        front_faces: [],
        selfie_faces: [],
        problem: 'document front: the face reader failed (the service log says why)',
      });
      expect(['image_quality', 'mrz', 'name', 'expiry'].map((k) => review.automatic_checks!.checks[k].result)).toEqual([
        'pass',
        'pass',
        'pass',
        'pass',
      ]);
      expect((await history(s, doc.document_ticket)).find((e) => e.action === 'identity_checked')).toMatchObject({
        details: { status: 'failed', not_passed: ['face'] },
      });
      expect(logged.mock.calls.flat().join('\n')).toContain('the face reader failed: the worker failed: ENOENT');
    } finally {
      failed.mockRestore();
      logged.mockRestore();
      await updateAccount(s.deps, { webId: s.creds.webId, identityDecision: 'manual' });
    }
  });

  it('automatic, on a server installed without the face and zone readers: those checks say so, a person decides', async () => {
    await updateAccount(s.deps, { webId: s.creds.webId, identityDecision: 'automatic' });
    const jail = s.deps.imageJail as { installed: IdentityReaders };
    const installed = jail.installed;
    jail.installed = { face: false, ocr: false };
    try {
      const { doc, review } = await submitAndCheck(cards.valid);
      expect(review).toMatchObject({ status: 'pending', decided_by: 'manual', automatic_checks: { status: 'failed' } });
      const checks = review.automatic_checks!.checks;
      expect(checks.image_quality.result).toBe('pass');
      expect(checks.mrz).toEqual({ result: 'not_checked', problem: OCR_NOT_INSTALLED });
      expect([checks.name, checks.expiry]).toEqual([{ result: 'not_checked' }, { result: 'not_checked' }]);
      expect(checks.face).toEqual({
        result: 'not_checked',
        threshold: FACE_THRESHOLD,
        front_faces: [],
        selfie_faces: [],
        problem: FACE_NOT_INSTALLED,
      });
      expect(OCR_NOT_INSTALLED).toMatch(/not available on this server/);
      expect((await history(s, doc.document_ticket)).find((e) => e.action === 'identity_checked')).toMatchObject({
        details: { status: 'failed', not_passed: ['mrz', 'name', 'expiry', 'face'] },
      });
    } finally {
      jail.installed = installed;
      await updateAccount(s.deps, { webId: s.creds.webId, identityDecision: 'manual' });
    }
  });

  it('automatic, but a check fails: expired document, another name, a wrong check digit; a person decides', async () => {
    await updateAccount(s.deps, { webId: s.creds.webId, identityDecision: 'automatic' });
    try {
      const expired = (await submitAndCheck(cards.expired)).review;
      expect(expired).toMatchObject({ status: 'pending', decided_by: 'manual', automatic_checks: { status: 'failed' } });
      expect(expired.automatic_checks?.checks.expiry).toEqual({ result: 'fail', expires_on: expect.any(String) });
      expect(expired.automatic_checks?.checks.name.result).toBe('pass');

      const other = (await submitAndCheck(cards.valid, 'Bruno Díaz')).review;
      expect(other.status).toBe('pending');
      expect(other.automatic_checks?.checks.name).toMatchObject({ result: 'fail', missing: ['BRUNO', 'DIAZ'] });

      const forged = await submitAndCheck(cards.badDigit);
      expect(forged.review.status).toBe('pending');
      expect(forged.review.automatic_checks?.checks.mrz).toMatchObject({ result: 'fail', check_digits: 'invalid' });
      expect(forged.review.automatic_checks?.checks.mrz.invalid_fields).toContain('documentNumberCheckDigit');
      expect(forged.review.automatic_checks?.checks.name.result).toBe('not_checked');
      // The person decides as for any manual review.
      const decided = await s.client.decideIdentityReview(forged.review.id, { decision: 'reject', reason: 'Zona de lectura alterada' });
      expect(decided.status).toBe('rejected');
      expect(await notifications(s, forged.doc.document_ticket, 'identity_verification_failed')).toEqual([
        expect.objectContaining({ provider: 'manual', reason: 'Zona de lectura alterada' }),
      ]);
    } finally {
      await updateAccount(s.deps, { webId: s.creds.webId, identityDecision: 'manual' });
    }
  });
});

describe('OCR and faces without a network', () => {
  it('reads the zone in a network namespace with no interface up', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sello-mrz-'));
    try {
      const file = join(dir, 'back.jpg');
      writeFileSync(file, writeJpeg(readPng(cards.valid.back), 90));
      const r = spawnSync('unshare', ['-n', process.execPath, 'bin/run-ts.js', 'test/helpers/read-mrz-offline.ts', file], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout.trim().split('\n').pop()!).reading).toMatchObject({ valid: true, surnames: 'GARCIA LOPEZ' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds and describes the portrait with the models and the .wasm read from disk, with no interface up', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sello-face-'));
    try {
      const file = join(dir, 'front.jpg');
      writeFileSync(file, writeJpeg(readPng(cards.valid.front), 90));
      const r = spawnSync('unshare', ['-n', process.execPath, 'bin/run-ts.js', 'test/helpers/read-mrz-offline.ts', '--faces', file], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
      expect(out.faces).toBeGreaterThanOrEqual(1);
      expect(out.descriptorLength).toBe(128);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
