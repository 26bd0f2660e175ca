// Signing inside the integrator's site, and the sender's brand, in a real Chromium. A host page on
// another loopback origin mounts the signer page with the client package's mountSigner
// (src/client/embed.ts, served as the browser gets it): the signer signs inside the frame, the host
// hears loaded, box_reached and signed, each posted to its origin and never to `*`, and it drops a
// look-alike message from any other origin. A set's page reports each of the signer's boxes in the
// set once, with the document it is on. A host whose origin the account did not list gets no
// page, even when it names a listed origin. The brand is judged by what a person sees: the header's
// and the button's computed colour, the logo (once), no "Sello" anywhere when hidden (signer and
// verify pages, the signer page's HTML as served), and the email's From name and Reply-To.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SelloClient } from '../../src/client/index.js';
import type { SignerEvent } from '../../src/client/embed.js';
import { createSmtpTransport } from '../../src/notify/email-transport.js';
import { launchChromium, pageProblems } from '../helpers/browser.js';
import { testPng } from '../helpers/images.js';
import { type JobRunner, jobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp-catcher.js';

let s: TestServer;
let browser: Browser;
let smtp: SmtpCatcher;
let jobs: JobRunner;
let listed: Host;
let unlisted: Host;
let brandedClient: SelloClient;
let pdf: string;

/** The mount script as the client package ships it: src/client/embed.ts compiled to JavaScript. */
const embedJs = ts.transpileModule(readFileSync(new URL('../../src/client/embed.ts', import.meta.url), 'utf8'), {
  compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
}).outputText;

interface Host {
  origin: string;
  server: Server;
}

/**
 * The integrator's site: `/` mounts the signer link given as ?url= with mountSigner and keeps the
 * events it hears in window.heard; `/raw` frames the link itself, as a page that names another
 * site's origin in embed_origin would.
 */
async function startHost(): Promise<Host> {
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://host');
    if (u.pathname === '/embed.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(embedJs);
      return;
    }
    const signer = JSON.stringify(u.searchParams.get('url') ?? '');
    const body =
      u.pathname === '/raw'
        ? `<iframe id="f" src=${signer} style="width:400px;height:700px"></iframe>`
        : `<div id="c" style="width:400px;height:700px"></div>
<script type="module">
  import { mountSigner } from '/embed.js';
  window.heard = [];
  mountSigner({ url: ${signer}, container: document.getElementById('c'), onEvent: (e) => window.heard.push(e) });
</script>`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><body>${body}</body></html>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  [s, browser, smtp, listed, unlisted] = await Promise.all([
    startTestServer(),
    launchChromium(),
    startSmtpCatcher(),
    startHost(),
    startHost(),
  ]);
  s.deps.mail = { transport: createSmtpTransport(smtp.url), from: 'Sello <no-reply@sello.test>' };
  jobs = jobRunner(s.connectionString, s.deps);
  pdf = (await makePdf([A4, A4])).toString('base64');
  await s.client.updateBrand({ frame_origins: [listed.origin] });
  brandedClient = (await s.newAccount('Notaría 12')).client;
  await brandedClient.updateBrand({
    brand_name: 'Notaría Doce',
    brand_colour: '#0b5394',
    email_sender_name: 'Notaría 12 · Firmas',
    email_reply_to: 'firmas@notaria12.example',
    hide_sello: true,
    logo: testPng(120, 40).toString('base64'),
  });
}, 180_000);
afterAll(async () => {
  await jobs?.close();
  await browser?.close();
  await s?.close();
  await smtp?.close();
  for (const h of [listed, unlisted]) {
    h?.server.close();
  }
});

const box = (page: number) => ({ page, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } });

async function oneSigner(client: SelloClient, workflow?: Record<string, unknown>) {
  const doc = await client.createDocument({
    b64_doc: pdf,
    name: 'Contrato',
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', ...box(0) },
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', ...box(1) },
    ],
    ...(workflow ? { workflow } : {}),
  });
  return { doc, url: doc.stickers[0].signer_url };
}

/**
 * A browser context whose every frame records the target origin of each postMessage it sends to
 * its parent (window.__targets of that frame): the signer page calls window.parent.postMessage,
 * and `parent` is a replaceable property of a window, so the frame's own view of it is wrapped.
 */
async function recordingContext() {
  const context = await browser.newContext({ viewport: { width: 900, height: 900 }, locale: 'es-ES' });
  await context.addInitScript(() => {
    if (window.parent === window) {
      return;
    }
    const real = window.parent;
    const targets: string[] = [];
    (window as unknown as { __targets: string[] }).__targets = targets;
    const recorder = new Proxy(real, {
      get(_t, key) {
        if (key === 'postMessage') {
          return (message: unknown, target: string) => {
            targets.push(String(target));
            real.postMessage(message, target);
          };
        }
        return Reflect.get(real, key);
      },
    });
    Object.defineProperty(window, 'parent', { configurable: true, get: () => recorder });
  });
  return context;
}

const heard = (page: Page) => page.evaluate(() => (window as unknown as { heard: SignerEvent[] }).heard.map((e) => e.event));

describe('embedded signing', () => {
  it('signs inside a frame of a listed origin; the host hears each event, from the service only, never sent to *', async () => {
    const { doc, url } = await oneSigner(s.client);
    const context = await recordingContext();
    const host = await context.newPage();
    const problems = pageProblems(host);
    await host.goto(`${listed.origin}/?url=${encodeURIComponent(url)}`);
    const frame = host.frameLocator('iframe');
    await frame.locator('[data-testid="page-header"]').waitFor();

    await expect.poll(() => heard(host)).toContain('loaded');
    // A look-alike event from the host's own origin (any window may post to it) is dropped.
    await host.evaluate(() => window.postMessage({ type: 'sello:signer', version: 1, event: 'signed', document_ticket: 'forged' }, '*'));

    // "Next box" takes the signer to each of their boxes: each is reached once.
    await frame
      .getByRole('button', { name: /Siguiente recuadro|Next box/ })
      .first()
      .click();
    await frame
      .getByRole('button', { name: /Siguiente recuadro|Next box/ })
      .first()
      .click();
    await frame.getByRole('tab', { name: 'Escribir' }).click();
    await frame.locator('#typed-signature').fill('Ana García');
    await frame.locator('#consent').check();
    await frame.getByRole('button', { name: 'Firmar' }).first().click();
    await frame.locator('[data-testid="signed-state"][data-document-status="completed"]').waitFor();
    await expect.poll(() => heard(host)).toContain('signed');

    const events = await host.evaluate(() => (window as unknown as { heard: SignerEvent[] }).heard);
    expect(events.every((e) => e.type === 'sello:signer' && e.version === 1 && e.document_ticket === doc.document_ticket)).toBe(true);
    expect(events.map((e) => e.event).filter((e) => e !== 'box_reached')).toEqual(['loaded', 'signed']);
    const boxes = events.filter((e) => e.event === 'box_reached');
    expect(boxes.map((e) => e.box_index).sort()).toEqual([0, 1]);
    expect(boxes.every((e) => e.box_count === 2)).toBe(true);
    expect(events.find((e) => e.event === 'signed')).toMatchObject({ status: 'completed' });
    expect(events.find((e) => e.event === 'loaded')).toMatchObject({ signer_status: expect.any(String) });

    const signerFrame = host.frames().find((f) => f.url().includes('/sign/'))!;
    const targets = await signerFrame.evaluate(() => (window as unknown as { __targets: string[] }).__targets);
    expect(targets.length).toBe(events.length);
    expect(new Set(targets)).toEqual(new Set([listed.origin]));
    expect(problems).toEqual([]);
    const report = await s.client.signatureReport(doc.document_ticket);
    expect([report.firmas.length, report.documentIntegrity]).toEqual([1, 'intact']);
    await context.close();
  });

  it("a set's page posts box_reached once for each of the signer's boxes in the set, naming the set and the box's document", async () => {
    const set = await s.client.createDocumentSet({ name: 'Alta de cliente' });
    const tickets: string[] = [];
    // Ana has two boxes in the first document and one in the second: three in the set.
    for (const pages of [[0, 1], [1]]) {
      const doc = await s.client.createDocument({
        b64_doc: pdf,
        name: `Documento ${tickets.length + 1}`,
        document_set: set.uuid,
        stickers: pages.map((p) => ({ authority: 'EMAIL_LINK' as const, data: 'ana@example.com', name: 'Ana García', ...box(p) })),
      });
      tickets.push(doc.document_ticket);
    }
    const closed = await s.client.closeDocumentSet(set.uuid, { language: 'es' });
    const context = await recordingContext();
    const host = await context.newPage();
    const problems = pageProblems(host);
    await host.goto(`${listed.origin}/?url=${encodeURIComponent(closed.signers[0].signer_url)}`);
    const frame = host.frameLocator('iframe');
    await expect.poll(() => heard(host)).toContain('loaded');
    const reached = async () =>
      (await host.evaluate(() => (window as unknown as { heard: SignerEvent[] }).heard)).filter((e) => e.event === 'box_reached');
    expect(await reached()).toEqual([]);

    // The second document first: its only box is the set's third.
    const items = frame.getByTestId('set-document');
    await items.nth(1).getByRole('button', { name: /Ver/ }).click();
    await frame.locator(`[data-embed-document="${tickets[1]}"]`).getByTestId('next-box').click();
    await expect.poll(async () => (await reached()).length).toBe(1);
    // Then the first, box by box.
    await items.nth(0).getByRole('button', { name: /Ver/ }).click();
    const first = frame.locator(`[data-embed-document="${tickets[0]}"]`).getByTestId('next-box');
    await first.click();
    await first.click();
    await expect.poll(async () => (await reached()).length).toBe(3);
    // Again through the same boxes: nothing more.
    await first.click();
    await frame.locator(`[data-embed-document="${tickets[1]}"]`).getByTestId('next-box').click();

    const boxes = await reached();
    expect(boxes).toHaveLength(3);
    expect(boxes[0]).toMatchObject({ set_uuid: set.uuid, document_ticket: tickets[1], box_index: 2, box_count: 3 });
    expect(boxes.map((e) => [e.set_uuid, e.document_ticket, e.box_index, e.box_count]).sort((a, b) => Number(a[2]) - Number(b[2]))).toEqual(
      [
        [set.uuid, tickets[0], 0, 3],
        [set.uuid, tickets[0], 1, 3],
        [set.uuid, tickets[1], 2, 3],
      ],
    );
    const events = await host.evaluate(() => (window as unknown as { heard: SignerEvent[] }).heard);
    expect(events.filter((e) => e.event !== 'box_reached')).toEqual([
      expect.objectContaining({ event: 'loaded', set_uuid: set.uuid, document_ticket: null }),
    ]);
    const targets = await host
      .frames()
      .find((f) => f.url().includes('/sign/'))!
      .evaluate(() => (window as unknown as { __targets: string[] }).__targets);
    expect(new Set(targets)).toEqual(new Set([listed.origin]));
    expect(problems).toEqual([]);
    await context.close();
  });

  it('an action the service refuses is heard as error, a rejection as rejected', async () => {
    const { doc, url } = await oneSigner(s.client, { language: 'en', remind_every: 0 });
    const context = await recordingContext();
    const host = await context.newPage();
    await host.goto(`${listed.origin}/?url=${encodeURIComponent(url)}`);
    const frame = host.frameLocator('iframe');
    await expect.poll(() => heard(host)).toContain('loaded');

    // The sender cancels while the page is open: the signature is refused (409), and the host hears it.
    await frame.getByRole('tab', { name: 'Type' }).click();
    await frame.locator('#typed-signature').fill('Ana García');
    await frame.locator('#consent').check();
    await s.client.updateWorkflow(doc.document_ticket, { cancel: true });
    await frame.getByRole('button', { name: 'Sign', exact: true }).first().click();
    await expect.poll(() => heard(host)).toContain('error');
    const error = (await host.evaluate(() => (window as unknown as { heard: SignerEvent[] }).heard)).find((e) => e.event === 'error');
    expect(error).toMatchObject({ code: 'DOCUMENT_NOT_SIGNABLE', document_ticket: doc.document_ticket });

    // Another document, rejected in the frame.
    const second = await oneSigner(s.client, { language: 'en', remind_every: 0 });
    await host.goto(`${listed.origin}/?url=${encodeURIComponent(second.url)}`);
    await expect.poll(() => heard(host)).toContain('loaded');
    await frame.getByRole('button', { name: 'Reject', exact: true }).first().click();
    const dialog = frame.getByRole('dialog', { name: 'Reject the document' });
    await dialog.getByLabel('Reason for rejecting').fill('No estoy de acuerdo');
    await dialog.getByRole('button', { name: 'Reject document' }).click();
    await expect.poll(() => heard(host)).toContain('rejected');
    const events = await host.evaluate(() => (window as unknown as { heard: SignerEvent[] }).heard);
    expect(events.find((e) => e.event === 'rejected')).toMatchObject({ status: 'rejected', document_ticket: second.doc.document_ticket });
    const targets = await host
      .frames()
      .find((f) => f.url().includes('/sign/'))!
      .evaluate(() => (window as unknown as { __targets: string[] }).__targets);
    expect(new Set(targets)).toEqual(new Set([listed.origin]));
    await context.close();
  });

  it('a site the account did not list gets no page, even naming a listed origin', async () => {
    const { url } = await oneSigner(s.client);
    const context = await recordingContext();
    for (const path of [
      `/?url=${encodeURIComponent(url)}`,
      `/raw?url=${encodeURIComponent(`${url}?embed_origin=${encodeURIComponent(listed.origin)}`)}`,
    ]) {
      const host = await context.newPage();
      const refused: string[] = [];
      host.on('console', (m) => {
        if (/frame-ancestors/.test(m.text())) {
          refused.push(m.text());
        }
      });
      const framed = host.waitForEvent('console', { predicate: (m) => /frame-ancestors/.test(m.text()) });
      await host.goto(`${unlisted.origin}${path}`);
      await framed;
      expect(refused.join('\n'), path).toMatch(/violates the following Content Security Policy directive: "frame-ancestors/);
      // Nothing of the signer page ran in the frame.
      const frame = host.frames().find((f) => f !== host.mainFrame())!;
      expect(await frame.locator('[data-testid="page-header"]').count(), path).toBe(0);
      if (path.startsWith('/?')) {
        expect(await heard(host)).toEqual([]);
      }
      await host.close();
    }
    await context.close();
  });
});

describe("the sender's brand", () => {
  it("colours the header and buttons, shows the logo and the brand's name, and no Sello anywhere", async () => {
    const branded = await oneSigner(brandedClient);
    const context = await browser.newContext({ viewport: { width: 400, height: 800 }, locale: 'es-ES' });
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(branded.url);
    await page.locator('[data-testid="sender-card"]').waitFor();

    const header = page.getByTestId('page-header');
    expect(await header.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(11, 83, 148)');
    expect(await header.evaluate((el) => getComputedStyle(el).color)).toBe('rgb(255, 255, 255)');
    expect(await page.getByTestId('bar-sign').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(11, 83, 148)');
    expect(await page.getByTestId('header-brand').textContent()).toBe('Notaría Doce');
    const logo = page.getByTestId('header-logo');
    expect(await logo.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await logo.evaluate((img: HTMLImageElement) => [img.complete, img.naturalWidth, img.naturalHeight])).toEqual([true, 120, 40]);
    // The page's words, not the document's (its text layer holds the PDF's own, "Sello test page 1").
    const pageWords = await page.evaluate(() => {
      const body = document.body.cloneNode(true) as HTMLElement;
      for (const layer of body.querySelectorAll('.textLayer')) {
        layer.remove();
      }
      return body.textContent;
    });
    expect(pageWords).toContain('Notaría Doce');
    expect(pageWords).not.toMatch(/sello/i);
    expect(await page.title()).not.toMatch(/sello/i);
    // The logo once, in the header (the "who asks" card draws none of its own).
    expect(await page.locator('img').count()).toBe(1);
    expect(problems).toEqual([]);

    // The page as the service sends it, before any script runs (a tab, a link's preview, no
    // JavaScript): titled with the document and the brand, and no Sello in it, <noscript> included.
    const served = await (await fetch(branded.url)).text();
    expect(/<title>([^<]*)<\/title>/.exec(served)?.[1]).toBe('Contrato.pdf · Notaría Doce');
    expect(served).not.toMatch(/sello/i);
    const plainServed = await (await fetch((await oneSigner(s.client)).url)).text();
    expect(/<title>([^<]*)<\/title>/.exec(plainServed)?.[1]).toBe('Contrato.pdf · Sello');

    // The document's public verification page: the brand's name at the top, Sello's nowhere.
    const verify = await browser.newContext({ locale: 'en-US' });
    const vp = await verify.newPage();
    await vp.goto(`${s.baseUrl}/verify/${branded.doc.document_ticket}`);
    expect(await vp.locator('header .brand').textContent()).toBe('Notaría Doce');
    expect(await vp.locator('body').innerText()).not.toMatch(/sello/i);
    expect(await vp.title()).not.toMatch(/sello/i);
    await vp.goto(`${s.baseUrl}/verify/${(await oneSigner(s.client)).doc.document_ticket}`);
    expect(await vp.locator('header .brand').textContent()).toBe('Sello');
    await verify.close();

    // The same page of an account without a brand: Sello's header, in Sello's blue.
    const plain = await oneSigner(s.client);
    await page.goto(plain.url);
    await page.locator('[data-testid="sender-card"]').waitFor();
    expect(await page.getByTestId('header-brand').textContent()).toBe('Sello');
    expect(await page.getByTestId('bar-sign').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(31, 79, 209)');
    await context.close();
  });

  it("sends the account's emails with its From name and Reply-To, from the operator's address", async () => {
    const { doc } = await oneSigner(brandedClient, { remind_every: 0 });
    await jobs.runDue();
    const mail = smtp.messages.find((m) => m.to.includes('ana@example.com') && m.text.includes(doc.stickers[0].signer_url))!;
    expect(mail).toBeDefined();
    const headers = mail.raw
      .toString('latin1')
      .split(/\r\n\r\n/)[0]
      .replace(/\r\n[ \t]+/g, ' ');
    const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(headers)?.[1];
    // The name is encoded (RFC 2047) for being non-ASCII; decoded, it is the account's.
    const fromName = /^"?(.*?)"? <([^>]+)>$/.exec(header('From') ?? '')!;
    expect(decodeWords(fromName[1])).toBe('Notaría 12 · Firmas');
    expect(fromName[2]).toBe('no-reply@sello.test');
    expect(header('Reply-To')).toBe('firmas@notaria12.example');
    expect(`${mail.subject}\n${mail.text}\n${mail.html}`).not.toMatch(/\bSello\b/);
  });
});

/** RFC 2047 encoded words (=?UTF-8?Q?…?= or ?B?) decoded. */
function decodeWords(text: string): string {
  return text.replace(/=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi, (_m, enc: string, data: string) =>
    enc.toUpperCase() === 'B'
      ? Buffer.from(data, 'base64').toString('utf8')
      : Buffer.from(
          data.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
          'latin1',
        ).toString('utf8'),
  );
}
