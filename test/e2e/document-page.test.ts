// document_url in a real Chromium at a phone's size: the document with every box labelled, a box
// chosen by tapping it, the address typed and sent; the email caught by a real SMTP server carries
// the signer's personal link, and that link opens the signing page.
import { execFileSync } from 'node:child_process';
import type { Browser } from 'playwright-core';
import { listChannelMessages } from '../../src/store/channel-messages-repo.js';
import { launchChromium, pageProblems } from '../helpers/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSmtpTransport } from '../../src/notify/email-transport.js';
import { jobRunner, type JobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp-catcher.js';

const PHONE = { width: 360, height: 740 };

let s: TestServer;
let smtp: SmtpCatcher;
let jobs: JobRunner;
let browser: Browser;

beforeAll(async () => {
  // `npm test` builds the page first; this makes a direct `vitest run` work too (a no-op when fresh).
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  [s, smtp, browser] = await Promise.all([startTestServer(), startSmtpCatcher(), launchChromium()]);
  s.deps.mail = { transport: createSmtpTransport(smtp.url), from: 'Sello <no-reply@sello.test>' };
  jobs = jobRunner(s.connectionString, s.deps);
});
afterAll(async () => {
  await browser?.close();
  await jobs?.close();
  await s?.close();
  await smtp?.close();
});

describe('document_url', () => {
  it('choose a box, give the address, get the personal link by email, and it opens the signing page', async () => {
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: 'Contrato',
      stickers: [
        { authority: 'EMAIL_LINK', data: 'bruno@example.com', name: 'Bruno Díaz', page: 0, rect: { lx: 320, ly: 60, tx: 520, ty: 130 } },
        { authority: 'EMAIL_LINK', data: 'ana@example.com', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
      ],
    });
    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, locale: 'es-ES' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console error: ${m.text()}`));
    await page.goto(doc.document_url);

    // Both boxes are drawn over the page's outline, labelled with the name and address masked;
    // the PDF itself is not loaded (the ticket is no credential for it).
    const anaBox = page.getByRole('button', { name: 'a***@example.com' });
    await anaBox.waitFor();
    expect(await page.getByRole('button', { name: 'B*** D*** · b***@example.com' }).isVisible()).toBe(true);
    expect(await page.content()).not.toContain('ana@example.com');
    expect(await page.content()).not.toContain('Bruno');
    expect(await page.locator('canvas').count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    expect(await page.locator('html').getAttribute('lang')).toBe('es');

    // Tapping the box chooses it in the list too, and moves on to the address.
    await anaBox.scrollIntoViewIfNeeded();
    await anaBox.click();
    expect(await anaBox.getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByRole('radio', { name: /a\*\*\*@example\.com/ }).isChecked()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('identify-email');
    await page.keyboard.type('Ana@Example.com');
    await page.keyboard.press('Enter');

    const sent = page.getByTestId('link-sent');
    await sent.waitFor();
    expect(await sent.textContent()).toContain('Si este correo pertenece al firmante del recuadro «a***@example.com»');

    await jobs.runDue();
    expect(smtp.messages.map((m) => m.to)).toEqual([['ana@example.com']]);
    const link = smtp.messages[0].text.match(/https?:\/\/\S+\/sign\/[A-Za-z0-9_-]{43}/)![0];
    expect(link).toBe(doc.stickers[1].signer_url);

    await page.goto(link);
    await page.getByRole('button', { name: 'Firmar', exact: true }).waitFor();
    expect(await page.locator('.box-hint').textContent()).toBe('Tu firma irá en el recuadro resaltado.');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('an SMS signer gives a phone number and gets the personal link by SMS', async () => {
    const number = '+5215511223344';
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: 'Pagaré',
      stickers: [{ authority: 'SMS', data: number, page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
    });
    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, locale: 'es-ES' });
    const invitations = async () =>
      (await listChannelMessages(s.deps, 500)).filter((m) => m.recipient === number && m.kind === 'invitation').reverse();
    const before = (await invitations()).length;
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(doc.document_url);
    await page.getByRole('radio').first().check();
    // The field asks for a phone number, with the keyboard a phone needs.
    const field = page.getByLabel(/Tu número de teléfono/);
    expect(await field.getAttribute('type')).toBe('tel');
    await field.fill('+52 1 55 1122 3344');
    await page.getByRole('button', { name: 'Enviarme mi enlace' }).click();
    const sent = page.getByTestId('link-sent');
    await sent.waitFor();
    expect(await page.getByRole('heading', { name: 'Revisa tus mensajes' }).isVisible()).toBe(true);
    // Without a provider configured the SMS waits in the outbox; it carries the signer's own link.
    const texts = await invitations();
    expect(texts).toHaveLength(before + 1);
    const last = texts[texts.length - 1];
    expect(last.channel).toBe('sms');
    expect(last.body_text).toContain(doc.stickers[0].signer_url);
    expect(problems).toEqual([]);
    await context.close();
  });
});
