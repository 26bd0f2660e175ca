// The panel and the brand, in a real Chromium: the sign-in page belongs to no account and shows the
// operator's brand from configuration (SELLO_OPERATOR_NAME, _COLOUR, _LOGO): its name and logo in
// the header, its colour in the header's and the button's computed style, Sello's name nowhere. A
// person of an account sets the account's brand on the panel's brand page; a colour too light for
// white text is refused naming the field and saves nothing.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, pageProblems } from '../helpers/browser.js';
import { testPng } from '../helpers/images.js';
import { panelSession } from '../helpers/panel.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { invitePanelUser } from '../../src/domain/panel/invite-panel-user.js';
import { createSmtpTransport } from '../../src/notify/email-transport.js';
import { type JobRunner, jobRunner } from '../helpers/jobs.js';
import { signInTokenFor } from '../helpers/panel.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp-catcher.js';

let s: TestServer;
let browser: Browser;
let smtp: SmtpCatcher;
let jobs: JobRunner;
const dir = mkdtempSync(join(tmpdir(), 'sello-panel-brand-'));

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  const logo = join(dir, 'operator.png');
  writeFileSync(logo, testPng(90, 30));
  [s, browser, smtp] = await Promise.all([
    startTestServer({ env: { SELLO_OPERATOR_NAME: 'Firmas Acme', SELLO_OPERATOR_COLOUR: '#7a1f5c', SELLO_OPERATOR_LOGO: logo } }),
    launchChromium(),
    startSmtpCatcher(),
  ]);
  s.deps.mail = { transport: createSmtpTransport(smtp.url), from: 'Sello <no-reply@sello.test>' };
  jobs = jobRunner(s.connectionString, s.deps);
}, 180_000);
afterAll(async () => {
  await jobs?.close();
  await smtp?.close();
  await browser?.close();
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the panel', () => {
  it("shows the operator's brand on the sign-in page, and no Sello", async () => {
    const context = await browser.newContext({ locale: 'es-ES' });
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(`${s.baseUrl}/panel/sign-in`);
    await expect.poll(() => page.getByTestId('operator-name').textContent()).toBe('Firmas Acme');
    const header = page.getByTestId('panel-header');
    expect(await header.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(122, 31, 92)');
    const button = page.locator('form button[type="submit"]');
    expect(await button.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(122, 31, 92)');
    const logo = page.getByTestId('operator-logo');
    await expect
      .poll(() => logo.evaluate((img: HTMLImageElement) => [img.complete, img.naturalWidth, img.naturalHeight]))
      .toEqual([true, 90, 30]);
    expect(await page.locator('body').innerText()).not.toMatch(/\bSello\b/);
    expect(await page.title()).toContain('Firmas Acme');
    expect(problems).toEqual([]);
    await context.close();
  });

  it("sets the account's brand on the brand page; a colour too light is refused naming it", async () => {
    await invitePanelUser(s.deps, { webId: s.creds.webId, email: 'lucia@example.com' });
    const token = await signInTokenFor(s, 'lucia@example.com');
    const context = await browser.newContext({ locale: 'es-ES' });
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(`${s.baseUrl}/panel/sign-in#token=${token}`);
    await page.getByRole('link', { name: 'Marca' }).click();
    await page.getByTestId('brand-form').waitFor();

    await page.getByLabel('Color principal (#rrggbb)').fill('#eeeeee');
    await page.getByRole('button', { name: 'Guardar' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/brand_colour/);
    expect((await s.client.getBrand()).brand_colour).toBeNull();

    await page.getByLabel('Color principal (#rrggbb)').fill('#0b5394');
    await page.getByLabel('Nombre junto al logotipo').fill('Notaría Doce');
    await page.getByLabel('Nombre del remitente de los correos').fill('Notaría 12');
    await page.getByLabel('Responder a (correo)').fill('firmas@notaria12.example');
    await page.getByLabel('No mostrar el nombre de Sello').check();
    await page.getByLabel(/Sitios que pueden mostrar/).fill('https://app.example.com\nhttp://127.0.0.1:8080');
    await page.getByRole('button', { name: 'Guardar' }).click();
    await expect.poll(() => page.getByTestId('brand-status').textContent()).toBe('Marca guardada.');
    expect(await s.client.getBrand()).toEqual({
      frame_origins: ['https://app.example.com', 'http://127.0.0.1:8080'],
      brand_name: 'Notaría Doce',
      brand_colour: '#0b5394',
      email_sender_name: 'Notaría 12',
      email_reply_to: 'firmas@notaria12.example',
      hide_sello: true,
      logo: null,
    });
    expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
    await context.close();
  });

  it('the panel API refuses a change without the CSRF token, and answers the operator brand without a session', async () => {
    const p = await panelSession(s, s.creds.webId, 'marco@example.com');
    expect((await p.call('POST', '/panel/api/brand', { body: { brand_name: 'X' }, csrf: false })).status).toBe(403);
    const r = await p.call('POST', '/panel/api/brand', { body: { frame_origins: ['https://app.example.com/path'] } });
    expect(r.status).toBe(400);
    expect((await r.json()).error.details.field).toBe('frame_origins[0]');
    const operator = await (await fetch(`${s.baseUrl}/panel/api/operator-brand`)).json();
    expect(operator).toMatchObject({ name: 'Firmas Acme', colour: '#7a1f5c' });
    expect(operator.logo).toMatch(/^data:image\/png;base64,/);
  });

  it("sends the sign-in link under the operator's name, not Sello's nor the account's brand", async () => {
    await s.client.updateBrand({
      brand_name: 'Notaría Doce',
      email_sender_name: 'Notaría 12',
      email_reply_to: 'firmas@notaria12.example',
      hide_sello: true,
    });
    await invitePanelUser(s.deps, { webId: s.creds.webId, email: 'sofia@example.com', language: 'en' });
    await jobs.runDue();
    const mail = smtp.messages.find((m) => m.to.includes('sofia@example.com'))!;
    expect(mail).toBeDefined();
    const headers = mail.raw
      .toString('latin1')
      .split(/\r\n\r\n/)[0]
      .replace(/\r\n[ \t]+/g, ' ');
    const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(headers)?.[1];
    expect(/^"?(.*?)"? <([^>]+)>$/.exec(header('From') ?? '')?.slice(1)).toEqual(['Firmas Acme', 'no-reply@sello.test']);
    expect(header('Reply-To')).toBeUndefined();
    expect(mail.text).toContain('To sign in to the panel of the account “Test account” on Firmas Acme, open this link.');
    expect(`${mail.subject}\n${mail.text}\n${mail.html}`).not.toMatch(/\bSello\b/);
  });
});
