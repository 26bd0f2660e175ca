// Preparing and sending a document from the account panel in Chromium, as a person would: signs in
// from the emailed link, uploads a two-page PDF, adds two signers, places each one's box with the
// mouse (one dragged, the other dragged and resized from its corner), moves one with the arrow keys
// and resizes it with shift, reloads and finds the draft as it was, sends with an address the
// service refuses (shown at that signer's field, nothing created), corrects it and sends; both sign
// through their links, and the signed PDF's signature widgets are where the boxes were placed. The
// panel route needs the session's CSRF token. Every step passes axe-core with no serious or
// critical violation, and nothing goes wrong in the console.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, CDPSession, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitePanelUser } from '../../src/domain/panel/invite-panel-user.js';
import { listMessages } from '../../src/store/mail-repo.js';
import { launchChromium, pageProblems } from '../helpers/browser.js';
import { A4, LETTER, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { openAndSign } from '../helpers/signer-page.js';
import { pdfsig } from '../helpers/validators.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let s: TestServer;
let browser: Browser;
/** The panel session's cookie, from the first test's sign-in. */
let session: Awaited<ReturnType<BrowserContext['cookies']>> = [];

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  [s, browser] = await Promise.all([startTestServer(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

/**
 * axe-core's serious and critical violations on the page as it is. The panel's CSP refuses an added
 * script tag (page.addScriptTag), so axe's source is evaluated through the DevTools protocol, which
 * CSP does not govern, as account-panel.test.ts does.
 */
async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) {
    await page.evaluate(readFileSync(AXE, 'utf8'));
  }
  const violations = await page.evaluate(async () => {
    const r = await (
      window as unknown as { axe: { run: () => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }
    ).axe.run();
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.targets.join(', ')}`);
}

async function checkAccessible(page: Page, name: string, langs: ('es' | 'en')[] = ['en']) {
  for (const lang of langs) {
    await page.getByTestId(`lang-${lang}`).click();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
    expect(await axeViolations(page), `${name} (${lang})`).toEqual([]);
  }
}

type Rect = { lx: number; ly: number; tx: number; ty: number };
const rectOf = async (box: Locator): Promise<Rect> => JSON.parse((await box.getAttribute('data-rect'))!);

/** Drags from the middle of `from` (or its corner handle) by (dx, dy) pixels with the mouse. */
async function drag(page: Page, from: Locator, dx: number, dy: number) {
  await from.scrollIntoViewIfNeeded();
  const b = (await from.boundingBox())!;
  const x = b.x + b.width / 2;
  const y = b.y + b.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx / 2, y + dy / 2, { steps: 3 });
  await page.mouse.move(x + dx, y + dy, { steps: 3 });
  await page.mouse.up();
}

/** Points per CSS pixel on the first page (A4, upright): its width in points over its width on screen. */
async function pointsPerPixel(page: Page): Promise<number> {
  const b = (await page.locator('[data-page="0"]').boundingBox())!;
  return A4.width / b.width;
}

/** The widgets of the PDF's pages as qpdf reads them: page index, field type (/Sig, /Tx), [x1 y1 x2 y2]. */
function widgetRects(pdf: Uint8Array): { page: number; type: string; rect: number[] }[] {
  const dir = mkdtempSync(join(tmpdir(), 'sello-prepare-'));
  try {
    writeFileSync(join(dir, 'doc.pdf'), pdf);
    const json = JSON.parse(
      execFileSync('qpdf', ['--json=2', '--json-key=pages', '--json-key=qpdf', join(dir, 'doc.pdf')], {
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      }),
    );
    const objects = json.qpdf[1] as Record<string, { value?: Record<string, unknown> }>;
    const deref = (v: unknown) => (typeof v === 'string' && / R$/.test(v) ? objects[`obj:${v}`]?.value : v);
    const out: { page: number; type: string; rect: number[] }[] = [];
    (json.pages as { object: string }[]).forEach((p, i) => {
      const page = deref(p.object) as Record<string, unknown>;
      for (const a of (deref(page['/Annots']) as unknown[] | undefined) ?? []) {
        const annot = deref(a) as Record<string, unknown>;
        if (annot['/Subtype'] === '/Widget') {
          // The field type is the widget's own (a merged field) or its parent field's.
          const type = String(annot['/FT'] ?? (deref(annot['/Parent']) as Record<string, unknown> | undefined)?.['/FT']);
          out.push({ page: i, type, rect: (deref(annot['/Rect']) as number[]).map(Number) });
        }
      }
    });
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const near = (a: Rect, b: Rect, tolerance: number) => (['lx', 'ly', 'tx', 'ty'] as const).every((k) => Math.abs(a[k] - b[k]) <= tolerance);

describe('prepare and send from the panel', () => {
  it('upload, place two signers with the mouse and the keys, reload, refused at the field, send, both sign where placed', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, locale: 'en-GB' });
    const page = await context.newPage();
    const problems = pageProblems(page);
    page.on('dialog', (d) => void d.accept());

    await invitePanelUser(s.deps, { webId: s.creds.webId, email: 'owner@example.com', language: 'en' });
    const mail = (await listMessages(s.deps, 10)).find((m) => m.kind === 'panel_sign_in' && m.recipient === 'owner@example.com')!;
    await page.goto(/https?:\/\/\S+\/panel\/sign-in#token=[A-Za-z0-9_-]{43}/.exec(mail.body_text)![0]);
    await page.getByTestId('sign-out').waitFor();
    session = await context.cookies();
    await page.getByTestId('lang-en').click();

    // Step 1: the PDF, read in the page and shown.
    await page.getByRole('link', { name: 'Send a document' }).click();
    await page.getByRole('heading', { name: 'Send a document' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/panel/send');
    await page.getByLabel('Upload a PDF').check();
    const pdf = await makePdf([A4, LETTER]);
    await page.getByLabel('PDF file').setInputFiles({ name: 'Contrato.pdf', mimeType: 'application/pdf', buffer: pdf });
    await page.locator('[data-page="0"][data-rendered="true"]').waitFor();
    expect(await page.locator('[data-page]').count()).toBe(2);
    await checkAccessible(page, 'source');

    // Step 2: two signers by email link.
    await page.getByTestId('next-step').click();
    for (const [i, name, email] of [
      [0, 'Ana Pérez', 'ana@example.com'],
      [1, 'Bruno Díaz', 'bruno@example.com'],
    ] as const) {
      await page.getByTestId('add-signer').click();
      const row = page.getByTestId(`signer-${i}`);
      await row.getByLabel('Name').fill(name);
      await row.getByLabel("Signer's identifier (EMAIL_LINK)").fill(email);
    }
    await checkAccessible(page, 'signers');

    // Step 3: Ana's box dragged with the mouse; Bruno's dragged, then resized from its corner.
    await page.getByTestId('next-step').click();
    await page.locator('[data-page="0"][data-rendered="true"]').waitFor();
    await page.getByRole('button', { name: 'Add box for Ana Pérez' }).click();
    const ana = page.getByRole('button', { name: 'Signature box of Ana Pérez, page 1' });
    const anaStart = await rectOf(ana);
    const k = await pointsPerPixel(page);
    await drag(page, ana, 120, 300);
    const anaPlaced = await rectOf(ana);
    expect(
      near(anaPlaced, { lx: anaStart.lx + 120 * k, tx: anaStart.tx + 120 * k, ly: anaStart.ly - 300 * k, ty: anaStart.ty - 300 * k }, 0.6),
      `${JSON.stringify(anaStart)} → ${JSON.stringify(anaPlaced)}`,
    ).toBe(true);

    await page.getByRole('button', { name: 'Add box for Bruno Díaz' }).click();
    const bruno = page.getByRole('button', { name: 'Signature box of Bruno Díaz, page 1' });
    const brunoStart = await rectOf(bruno);
    await drag(page, bruno, 220, 420);
    await drag(page, bruno.locator('[data-corner="se"]'), 40, 30);
    const brunoPlaced = await rectOf(bruno);
    expect(
      near(
        brunoPlaced,
        { lx: brunoStart.lx + 220 * k, tx: brunoStart.tx + 260 * k, ly: brunoStart.ly - 450 * k, ty: brunoStart.ty - 420 * k },
        0.6,
      ),
      `${JSON.stringify(brunoStart)} → ${JSON.stringify(brunoPlaced)}`,
    ).toBe(true);

    // A text field Ana fills, placed the same way and labelled.
    await page.getByRole('button', { name: 'Add field for Ana Pérez' }).click();
    const field = page.getByRole('button', { name: 'Text · Ana Pérez, field on page 1' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Text · Ana Pérez, field on page 1');
    const fieldStart = await rectOf(field);
    await drag(page, field, 300, 40);
    await page.getByTestId('field-settings').getByLabel('Label', { exact: true }).fill('Cargo');
    const fieldPlaced = await rectOf(page.getByRole('button', { name: 'Cargo · Ana Pérez, field on page 1' }));
    expect(
      near(
        fieldPlaced,
        { lx: fieldStart.lx + 300 * k, tx: fieldStart.tx + 300 * k, ly: fieldStart.ly - 40 * k, ty: fieldStart.ty - 40 * k },
        0.6,
      ),
    ).toBe(true);

    // A checkbox for Bruno, added and taken away with the Delete key: the focus returns to where fields are added.
    await page.getByLabel('Field type').nth(1).selectOption('checkbox');
    await page.getByRole('button', { name: 'Add field for Bruno Díaz' }).click();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Checkbox · Bruno Díaz, field on page 1');
    await page.keyboard.press('Delete');
    await expect.poll(() => page.getByTestId('field-settings').count()).toBe(1);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Add field for Bruno Díaz');

    // The keyboard: Ana's box two steps right and one up (5 points each), then one step wider.
    await ana.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Shift+ArrowRight');
    const anaFinal = await rectOf(ana);
    expect(anaFinal).toEqual({
      lx: round(anaPlaced.lx + 10),
      ly: round(anaPlaced.ly + 5),
      tx: round(anaPlaced.tx + 15),
      ty: round(anaPlaced.ty + 5),
    });
    await checkAccessible(page, 'placement', ['es', 'en']);

    // A reload finds the draft as it was: the step, the signers, the boxes.
    await expect.poll(() => page.getByTestId('draft-status').getAttribute('data-status')).toBe('saved');
    await page.reload();
    await page.locator('[data-page="0"][data-rendered="true"]').waitFor();
    expect(await rectOf(ana)).toEqual(anaFinal);
    expect(await rectOf(bruno)).toEqual(brunoPlaced);
    // The draft's payload is the create body: one sticker per box, the field naming Ana's sticker.
    const draft = (await page.evaluate(
      () =>
        new Promise((resolve) => {
          const open = indexedDB.open('sello-panel');
          open.onsuccess = () => {
            const get = open.result.transaction('drafts').objectStore('drafts').get('current');
            get.onsuccess = () => resolve(get.result ?? null);
          };
        }),
    )) as { payload: Record<string, unknown> };
    expect(draft.payload).toMatchObject({
      b64_doc: pdf.toString('base64'),
      stickers: [
        { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana Pérez', page: 0, rect: anaFinal },
        { authority: 'EMAIL_LINK', data: 'bruno@example.com', name: 'Bruno Díaz', page: 0, rect: brunoPlaced },
      ],
      signer_fields: [{ type: 'text', signer: 0, page: 0, rect: fieldPlaced, label: 'Cargo' }],
    });
    // With the keyboard alone: Enter on "Add box" gives the new box the focus, the arrows move it,
    // Delete removes it and the focus goes back to the button.
    await page.getByRole('button', { name: 'Add box for Bruno Díaz' }).focus();
    await page.keyboard.press('Enter');
    const focusedRect = async () => JSON.parse((await page.evaluate(() => document.activeElement?.getAttribute('data-rect')))!) as Rect;
    const added = await focusedRect();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowLeft');
    expect(await focusedRect()).toEqual({
      lx: round(added.lx - 5),
      ly: round(added.ly - 5),
      tx: round(added.tx - 5),
      ty: round(added.ty - 5),
    });
    await page.keyboard.press('Delete');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Add box for Bruno Díaz');
    expect(await page.getByRole('button', { name: 'Signature box of Bruno Díaz, page 1' }).count()).toBe(1);

    // Step 4, then Send with an address the service refuses: shown at Bruno's field, nothing created.
    await page.getByTestId('next-step').click();
    await page.getByLabel('Message to the signers').fill('Please sign the contract.');
    await checkAccessible(page, 'options', ['es', 'en']);
    await page.getByTestId('step-signers').click();
    const brunoData = page.getByTestId('signer-1').getByLabel("Signer's identifier (EMAIL_LINK)");
    await brunoData.fill('bruno@example');
    await page.getByTestId('step-options').click();
    await page.getByTestId('send').click();
    await expect.poll(() => brunoData.getAttribute('aria-invalid')).toBe('true');
    const said = await page.locator(`#${await brunoData.getAttribute('id')}-error`).textContent();
    expect(said).toMatch(/^stickers\[1\]\.data: data must be an email address/);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-invalid'))).toBe('true');
    await checkAccessible(page, 'refused at the field');
    const listed = async () => (await s.client.listDocuments({ from: 0, to: s.deps.clock.now().getTime() + 1000 })).documents;
    expect(await listed()).toEqual([]);

    // Without the session's CSRF token the panel route refuses, and nothing is created.
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const forged = await fetch(`${s.baseUrl}/panel/api/documents`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ b64_doc: pdf.toString('base64'), stickers: [] }),
    });
    expect(forged.status).toBe(403);
    expect((await forged.json()).error.code).toBe('CSRF_TOKEN_INVALID');

    await brunoData.fill('bruno@example.com');
    await page.getByTestId('step-options').click();
    await page.getByTestId('send').click();
    await page.getByTestId('sent').waitFor();
    const links = await page.getByTestId('sent-link').allTextContents();
    expect(links).toHaveLength(2);
    await checkAccessible(page, 'sent');
    // Sent: the draft is gone from the browser.
    const kept = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const open = indexedDB.open('sello-panel');
          open.onsuccess = () => {
            const get = open.result.transaction('drafts').objectStore('drafts').get('current');
            get.onsuccess = () => resolve(get.result ?? null);
          };
        }),
    );
    expect(kept).toBeNull();
    const [doc] = await listed();
    expect(doc).toMatchObject({ name: 'Contrato.pdf' });
    expect(doc.signers.map((x) => [x.name, x.data])).toEqual([
      ['Ana Pérez', 'ana@example.com'],
      ['Bruno Díaz', 'bruno@example.com'],
    ]);

    // Both sign through their links; the widgets are where the boxes and the field were placed.
    for (const link of links) {
      await openAndSign(s.baseUrl, link.trim());
    }
    const signed = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    const rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
    expect((await pdfsig(signed, rootPem)).signatures.map((x) => x.valid)).toEqual([true, true]);
    const all = widgetRects(signed).map((w) => ({
      page: w.page,
      type: w.type,
      lx: w.rect[0],
      ly: w.rect[1],
      tx: w.rect[2],
      ty: w.rect[3],
    }));
    const widgets = all.filter((w) => w.type === '/Sig');
    expect(widgets).toHaveLength(2);
    // Ana's text field is a form field where it was placed.
    const texts = all.filter((w) => w.type === '/Tx');
    expect(texts.length, JSON.stringify(all)).toBe(1);
    expect(near(texts[0], fieldPlaced, 1), `${JSON.stringify(fieldPlaced)} vs ${JSON.stringify(texts[0])}`).toBe(true);
    expect(texts[0].page).toBe(0);
    for (const placed of [anaFinal, brunoPlaced]) {
      expect(
        widgets.some((w) => w.page === 0 && near(w, placed, 1)),
        `${JSON.stringify(placed)} among ${JSON.stringify(widgets)}`,
      ).toBe(true);
    }
    // The one refusal asked for above is all that went wrong.
    expect(problems).toEqual([
      expect.stringMatching(
        /^console error: Failed to load resource: the server responded with a status of 400 .*\/panel\/api\/documents$/,
      ),
    ]);
    await context.close();
  });

  it("on a phone: a template's pages, a box dragged with a finger, sent", async () => {
    await s.client.saveTemplate({
      template_type: 'html',
      template_name: 'contrato',
      template_data: Buffer.from(
        '<!doctype html><html><body><p>Cliente: <span class="svc-template-field" id="client">CLIENT</span></p></body></html>',
      ).toString('base64'),
    });
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'es-ES' });
    await context.addCookies(session);
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(`${s.baseUrl}/panel/send`);
    await page.getByTestId('lang-en').click();
    await page.getByLabel('A saved template').check();
    await page.getByLabel('Template', { exact: true }).selectOption('contrato');
    await page.getByLabel('client').fill('Ana Pérez');
    await page.getByTestId('template-pages').click();
    await page.locator('[data-page="0"][data-rendered="true"]').waitFor();
    await checkAccessible(page, 'template on a phone');

    await page.getByTestId('next-step').click();
    await page.getByTestId('add-signer').click();
    await page.getByTestId('signer-0').getByLabel('Name').fill('Ana Pérez');
    await page.getByTestId('signer-0').getByLabel("Signer's identifier (EMAIL_LINK)").fill('ana@example.com');
    await page.getByTestId('next-step').click();
    await page.locator('[data-page="0"][data-rendered="true"]').waitFor();
    await page.getByRole('button', { name: 'Add box for Ana Pérez' }).click();
    const box = page.getByRole('button', { name: 'Signature box of Ana Pérez, page 1' });
    const start = await rectOf(box);
    // Points per pixel from the box itself: its width in points over its width on the screen.
    const k = (start.tx - start.lx) / (await box.boundingBox())!.width;
    await touchDrag(await context.newCDPSession(page), box, 60, 150);
    const placed = await rectOf(box);
    expect(
      near(placed, { lx: start.lx + 60 * k, tx: start.tx + 60 * k, ly: start.ly - 150 * k, ty: start.ty - 150 * k }, 0.6),
      `${JSON.stringify(start)} → ${JSON.stringify(placed)}`,
    ).toBe(true);
    await checkAccessible(page, 'placement on a phone');

    // "Send to many" keeps the draft and opens the bulk page, which reads it; back, it is all here.
    await page.getByTestId('send-to-many').click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/panel/bulk');
    await page.goBack();
    await page.locator('[data-page="0"][data-rendered="true"]').waitFor();
    expect(await rectOf(box)).toEqual(placed);

    await page.getByTestId('step-options').click();
    await page.getByTestId('send').click();
    await page.getByTestId('sent').waitFor();
    const docs = (await s.client.listDocuments({ from: 0, to: s.deps.clock.now().getTime() + 1000 })).documents;
    expect(docs.map((d) => d.name)).toContain('contrato.pdf');
    expect(problems).toEqual([]);
    await context.close();
  });
});

/** A finger on the middle of `target`, moved by (dx, dy) pixels and lifted, through the DevTools protocol's touch events. */
async function touchDrag(cdp: CDPSession, target: Locator, dx: number, dy: number) {
  await target.scrollIntoViewIfNeeded();
  const b = (await target.boundingBox())!;
  const x = b.x + b.width / 2;
  const y = b.y + b.height / 2;
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
  for (const f of [0.25, 0.5, 0.75, 1]) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: x + dx * f, y: y + dy * f }] });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
}

const round = (v: number) => Math.round(v * 100) / 100;
