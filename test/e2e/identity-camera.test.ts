// Identity verification with the camera inside the signer page, in a real Chromium whose camera is
// Chromium's fake capture device playing a file (--use-file-for-fake-video-capture): the signer
// takes the document's two sides and a selfie with the camera, the review API approves one signer
// (who then signs) and rejects another (who cannot), and the events arrive.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, pageProblems } from '../helpers/browser.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pdfsig } from '../helpers/validators.js';
import { eventKinds } from '../helpers/events.js';

const WIDTH = 1280;
const HEIGHT = 720;

/**
 * A YUV4MPEG2 file (the format Chromium's fake camera plays) of a few frames: a light card with dark
 * bands on a grey background, so the photo has edges and is no flat colour.
 */
function fakeCameraFile(path: string): void {
  const y = Buffer.alloc(WIDTH * HEIGHT);
  for (let row = 0; row < HEIGHT; row++) {
    for (let col = 0; col < WIDTH; col++) {
      const card = col > 240 && col < 1040 && row > 160 && row < 560;
      const band = card && row % 40 < 8 && col > 300 && col < 900;
      y[row * WIDTH + col] = band ? 30 : card ? 220 : 90 + ((col + row) % 64);
    }
  }
  const chroma = Buffer.alloc((WIDTH / 2) * (HEIGHT / 2), 128);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), y, chroma, chroma]);
  writeFileSync(path, Buffer.concat([Buffer.from(`YUV4MPEG2 W${WIDTH} H${HEIGHT} F10:1 Ip A1:1 C420jpeg\n`), frame, frame, frame]));
}

let s: TestServer;
let browser: Browser;
let rootPem: string;
const tmp = mkdtempSync(join(tmpdir(), 'sello-camera-'));

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  const video = join(tmp, 'camera.y4m');
  fakeCameraFile(video);
  [s, browser] = await Promise.all([
    startTestServer(),
    launchChromium(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-video-capture=${video}`]),
  ]);
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const eventsOf = (ticket: string) => eventKinds(s.deps.db, ticket);

describe('identity verification with the camera', { timeout: 180_000 }, () => {
  it('takes the document and a selfie with the camera; an approved signer signs, a rejected one cannot; the events arrive', async () => {
    const pdf = (await makePdf([A4])).toString('base64');
    for (const outcome of ['approve', 'reject'] as const) {
      const doc = await s.client.createDocument({
        b64_doc: pdf,
        stickers: [
          {
            authority: 'EMAIL_LINK',
            data: `${outcome}@example.com`,
            name: 'Inés Camacho',
            page: 0,
            rect: { lx: 60, ly: 60, tx: 260, ty: 130 },
            requireIdentityVerification: true,
          },
        ],
      });
      const context = await browser.newContext({ viewport: { width: 800, height: 900 }, locale: 'es-ES', permissions: ['camera'] });
      const page = await context.newPage();
      const problems = pageProblems(page);
      await page.goto(doc.stickers[0].signer_url);
      await page.getByRole('heading', { name: 'Verifica tu identidad' }).waitFor();
      // The page names the signer's state as the sender's listing does.
      const ownBadge = page.locator('.signers .badge').first();
      expect(await ownBadge.textContent()).toBe('Verificación de identidad pendiente');
      const listedStatus = async () =>
        (await s.client.listDocuments()).documents.find((d) => d.document_ticket === doc.document_ticket)!.signers[0].status;
      expect(await listedStatus()).toBe('verification_pending');

      for (const [i, label] of ['Identificación, frente', 'Identificación, reverso', 'Selfie'].entries()) {
        await page.getByRole('button', { name: `Usar la cámara: ${label}` }).click();
        const preview = page.getByLabel(`Vista de la cámara: ${label}`);
        await preview.waitFor();
        // The fake camera's frames are playing at their own size.
        await expect.poll(() => preview.evaluate((v: HTMLVideoElement) => [v.videoWidth, v.videoHeight])).toEqual([WIDTH, HEIGHT]);
        await page.getByRole('button', { name: `Tomar foto: ${label}` }).click();
        await expect.poll(() => page.locator('.identity-field .badge').count()).toBe(i + 1);
        expect(await preview.count()).toBe(0);
      }
      await page.getByRole('button', { name: 'Enviar a revisión' }).click();
      await page.getByTestId('identity-pending').waitFor();

      // What the reviewer sees is the camera's frame, as a JPEG at the camera's resolution.
      const pending = (await s.client.listIdentityReviews({ status: 'pending' })).reviews.find(
        (r) => r.document_ticket === doc.document_ticket,
      )!;
      const detail = await s.client.getIdentityReview(pending.id);
      expect(detail.evidence.map((e) => [e.kind, e.content_type, e.width, e.height]).sort()).toEqual([
        ['back', 'image/jpeg', WIDTH, HEIGHT],
        ['front', 'image/jpeg', WIDTH, HEIGHT],
        ['selfie', 'image/jpeg', WIDTH, HEIGHT],
      ]);
      for (const e of detail.evidence) {
        expect(
          Buffer.from(e.image, 'base64')
            .subarray(0, 3)
            .equals(Buffer.from([0xff, 0xd8, 0xff])),
        ).toBe(true);
      }

      await s.client.decideIdentityReview(
        pending.id,
        outcome === 'approve' ? { decision: 'approve' } : { decision: 'reject', reason: 'La foto no coincide' },
      );
      await page.reload();
      if (outcome === 'approve') {
        await page.getByRole('tab', { name: 'Escribir' }).waitFor();
        expect(await ownBadge.textContent()).toBe('Identidad verificada');
        expect(await listedStatus()).toBe('verified');
        await page.getByRole('tab', { name: 'Escribir' }).click();
        await page.locator('#typed-signature').fill('Inés Camacho');
        await page.locator('#consent').check();
        await page.getByRole('button', { name: 'Firmar' }).click();
        await page.locator('[data-testid="signed-state"][data-document-status="completed"]').waitFor({ timeout: 90_000 });
        const signed = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
        expect((await pdfsig(signed, rootPem)).signatures.map((x) => x.valid)).toEqual([true]);
        expect(await eventsOf(doc.document_ticket)).toEqual(['identity_verification_passed', 'original_signed', 'document_completed']);
      } else {
        await page.getByTestId('identity-failed').waitFor();
        expect(await page.getByText('Motivo: La foto no coincide').count()).toBe(1);
        expect(await page.getByRole('button', { name: 'Firmar' }).count()).toBe(0);
        const refused = await fetch(`${s.baseUrl}/sign/api/${doc.stickers[0].signer_url.split('/').pop()}/sign`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ signature: { type: 'typed', text: 'Inés' }, consent: true }),
        });
        expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([
          409,
          'IDENTITY_VERIFICATION_FAILED',
        ]);
        expect(await eventsOf(doc.document_ticket)).toEqual(['identity_verification_failed']);
      }
      expect(problems).toEqual([]);
      await context.close();
    }
  });
});
