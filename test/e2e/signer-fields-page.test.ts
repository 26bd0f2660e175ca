// Fields signers fill, on the signer page in a real Chromium at a phone's size: two signers each
// with their own fields (text in Cyrillic, a date, a checkbox, a list of options, initials in two
// boxes, one required); a required field left empty and a mistyped email stop the signature at
// the field (axe-core finds nothing serious there); both sign, and the signed PDF carries every
// value (pdftotext) under two signatures pdfsig finds valid. Then a set link (each document's
// fields in their own document) and the two-step path of an own certificate (CERT).
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, pageProblems } from '../helpers/browser.js';
import { type CertCredential, type CertTestPki, createCertTestPki } from '../helpers/cert-pki.js';
import { pdfToText } from '../helpers/pdf-forms.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pdfsig } from '../helpers/validators.js';

const PHONE = { width: 360, height: 740 };
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let s: TestServer;
let browser: Browser;
let rootPem: string;
// A CA of the signers' own certificates, which the service trusts (the CERT path).
let ca: CertTestPki;
let lucia: CertCredential;

beforeAll(async () => {
  // `npm test` builds the page first; this makes a direct `vitest run` work too (a no-op when fresh).
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  ca = await createCertTestPki();
  [s, browser, lucia] = await Promise.all([
    startTestServer({ env: { SELLO_CERT_TRUST_PEM: ca.trustPemPath } }),
    launchChromium(),
    ca.issue({ name: 'Lucia Mendez', email: 'lucia@example.com', password: 'Clave#Propia2026' }),
  ]);
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await ca?.close();
});

/** A phone-sized page; every script error or console error fails the test that opened it. */
async function phone(url: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, locale: 'es-ES' });
  const page = await context.newPage();
  const problems = pageProblems(page);
  await page.goto(url);
  return { page, problems };
}

const rect = (x: number, y: number, w = 200, h = 22) => ({ lx: x, ly: y, tx: x + w, ty: y + h });

/** Types a signature and gives consent: what stays is pressing Sign. */
async function typedSignature(page: Page, name: string) {
  await page.getByRole('tab', { name: 'Escribir' }).click();
  await page.locator('#typed-signature').fill(name);
  await page.locator('#consent').check();
}

/** axe-core's serious and critical violations on the page as it is now, each with where it is. */
async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP refuses an added script tag, as it should.
  await page.evaluate(await readFile(AXE, 'utf8'));
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

/** The list's control labelled `label` (the one in the signing section, not the box on the page). */
const listed = (page: Page, label: string | RegExp) => page.getByTestId('signer-fields').getByLabel(label);

describe('fields signers fill', () => {
  it('blocks signing at the field until the values are right, and writes them in the revisions both signers sign', async () => {
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4, A4])).toString('base64'),
      name: 'Alta de cliente',
      stickers: [
        { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', page: 1, rect: rect(60, 60, 200, 70) },
        { authority: 'EMAIL_LINK', data: 'ivan@example.com', name: 'Иван Петров', page: 1, rect: rect(320, 60, 200, 70) },
      ],
      signer_fields: [
        { type: 'text', signer: 0, page: 0, rect: rect(60, 700), label: 'Nombre completo', required: true },
        { type: 'text', signer: 0, page: 0, rect: rect(60, 660), label: 'Correo', format: 'email' },
        { type: 'date', signer: 0, page: 0, rect: rect(60, 620, 120), label: 'Fecha' },
        { type: 'checkbox', signer: 0, page: 0, rect: rect(60, 580, 16, 16), label: 'Acepto el aviso de privacidad' },
        { type: 'dropdown', signer: 0, page: 0, rect: rect(60, 540, 120), label: 'Plan', options: ['Básico', 'Empresarial'] },
        { type: 'initials', signer: 0, page: 0, rect: rect(480, 40, 60, 30) },
        { type: 'initials', signer: 0, page: 1, rect: rect(480, 200, 60, 30) },
        { type: 'text', signer: 1, page: 0, rect: rect(320, 700), label: 'Ciudad', required: true },
        { type: 'date', signer: 1, page: 0, rect: rect(320, 620, 120), label: 'Fecha de recepción', date_format: 'YYYY-MM-DD' },
        { type: 'checkbox', signer: 1, page: 0, rect: rect(320, 580, 16, 16), label: 'Recibí copia' },
        { type: 'dropdown', signer: 1, page: 0, rect: rect(320, 540, 120), label: 'Sucursal', options: ['Norte', 'Sur'] },
        { type: 'initials', signer: 1, page: 1, rect: rect(480, 260, 60, 30) },
      ],
    });

    // Ana, on her phone: her fields are listed above the way she signs, and drawn over page 1.
    const { page, problems } = await phone(doc.stickers[0].signer_url);
    await page.getByTestId('signer-fields').waitFor();
    const name = listed(page, /Nombre completo/);
    const email = listed(page, /Correo/);
    expect(await name.getAttribute('aria-required')).toBe('true');
    // The field's box sits where it was placed: (60, 700)–(260, 722) in points from the lower-left corner.
    const pageBox = (await page.locator('.page').first().boundingBox())!;
    const nameBox = (await page.locator('[data-field-box]').first().boundingBox())!;
    const k = pageBox.width / A4.width;
    expect(nameBox.x - pageBox.x).toBeCloseTo(60 * k, 0);
    expect(nameBox.y - pageBox.y).toBeCloseTo((A4.height - 722) * k, 0);
    expect(nameBox.width).toBeCloseTo(200 * k, 0);
    // The initials come from her name, and show in each of her two initials boxes.
    expect(await listed(page, 'Tus iniciales').inputValue()).toBe('AG');
    // The date defaults to the signing day, as it will be written, with the document's time zone.
    const dateShown = (await page.getByTestId('field-date-shown').first().textContent()) ?? '';
    const today = /«(\d{2}\/\d{2}\/\d{4})»/.exec(dateShown)?.[1];
    expect(today, dateShown).toBeTruthy();
    // "Next box" stops at the fields too, in reading order: the first is the name's box on page 1.
    await page.getByTestId('action-bar').getByTestId('next-box').click();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Nombre completo');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(`signer-field-page-${await fieldId(page, 'Nombre completo')}`);

    // She signs with the required field empty: nothing is sent, the field says why and has the focus.
    await typedSignature(page, 'Ana García');
    const signButton = page.getByRole('button', { name: 'Firmar', exact: true });
    await signButton.click();
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    const nameMessage = page.locator(`#${(await name.getAttribute('aria-describedby'))!.split(' ')[0]}`);
    expect(await nameMessage.textContent()).toBe('Este dato es obligatorio.');
    expect(await name.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.getByTestId('signed-state').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    // A mistyped email is refused at its field the same way.
    await name.fill('Анна Гарсия');
    await email.fill('ana@example');
    await signButton.click();
    await expect.poll(() => email.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`#${(await email.getAttribute('aria-describedby'))!}`).textContent()).toMatch(/correo electrónico válido/);
    expect(await email.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await name.getAttribute('aria-invalid')).toBeNull();
    expect(await page.getByTestId('signed-state').count()).toBe(0);

    await email.fill('anna@example.com');
    await listed(page, /Acepto el aviso de privacidad/).check();
    await listed(page, 'Plan').selectOption('Empresarial');
    // The box on the page shows what the list holds.
    const planOnPage = page.locator(`#signer-field-page-${await fieldId(page, 'Plan')}`);
    await expect.poll(() => planOnPage.inputValue()).toBe('Empresarial');
    await signButton.click();
    await page.locator('[data-testid="signed-state"][data-document-status="pending"]').waitFor();
    expect(problems).toEqual([]);
    await page.context().close();

    // Иван fills his fields in their boxes on the page (the one required, Cyrillic) and signs with the keyboard.
    const second = await phone(doc.stickers[1].signer_url);
    const p2 = second.page;
    await p2.getByTestId('signer-fields').waitFor();
    expect(await listed(p2, 'Tus iniciales').inputValue()).toBe('ИП');
    const city = p2.getByRole('textbox', { name: 'Ciudad', exact: true }).and(p2.locator('[id^="signer-field-page-"]'));
    await city.fill('Москва');
    expect(await listed(p2, /Ciudad/).inputValue()).toBe('Москва');
    await p2.getByRole('combobox', { name: 'Sucursal' }).and(p2.locator('[id^="signer-field-page-"]')).selectOption('Sur');
    const received = /«(\d{4}-\d{2}-\d{2})»/.exec((await p2.getByTestId('field-date-shown').textContent()) ?? '')?.[1];
    expect(received).toBeTruthy();
    await typedSignature(p2, 'Иван Петров');
    await p2.getByRole('button', { name: 'Firmar', exact: true }).click();
    await p2.locator('[data-testid="signed-state"][data-document-status="completed"]').waitFor();
    expect(second.problems).toEqual([]);

    // The signed PDF: every value as text, both signatures valid.
    const href = (await p2.getByTestId('download-link').getAttribute('href'))!;
    const signed = Buffer.from(await (await fetch(new URL(href, s.baseUrl))).arrayBuffer());
    await p2.context().close();
    const text = pdfToText(signed);
    for (const value of ['Анна Гарсия', 'anna@example.com', today!, 'Empresarial', 'AG', 'Москва', received!, 'Sur', 'ИП']) {
      expect(text, value).toContain(value);
    }
    const report = await pdfsig(signed, rootPem);
    expect(report.signatures, report.output).toHaveLength(2);
    for (const sig of report.signatures) {
      expect(sig, report.output).toMatchObject({ valid: true, trusted: true });
    }
  });

  it("on a set link, lists each document's fields with its name, stops at an empty one, and writes each in its own document", async () => {
    const set = await s.client.createDocumentSet({ name: 'Alta de proveedor' });
    const pdf = (await makePdf([A4])).toString('base64');
    const sticker = { authority: 'EMAIL_LINK' as const, data: 'ana@example.com', name: 'Ana García', page: 0, rect: rect(60, 60, 200, 70) };
    for (const [name, field] of [
      ['Contrato', { type: 'text' as const, label: 'Cargo', required: true }],
      ['Anexo', { type: 'initials' as const }],
    ] as const) {
      await s.client.createDocument({
        b64_doc: pdf,
        name,
        document_set: set.uuid,
        stickers: [sticker],
        signer_fields: [{ ...field, signer: 0, page: 0, rect: rect(60, 700) }],
      });
    }
    const closed = await s.client.closeDocumentSet(set.uuid, { language: 'es' });
    const { page, problems } = await phone(closed.signers[0].signer_url);
    await page.getByTestId('signer-fields').waitFor();
    const role = listed(page, /Cargo · Contrato/);
    expect(await listed(page, 'Tus iniciales').inputValue()).toBe('AG');

    await typedSignature(page, 'Ana García');
    const signAll = page.getByRole('button', { name: 'Firmar los 2 documentos' });
    await signAll.click();
    await expect.poll(() => role.getAttribute('aria-invalid')).toBe('true');
    expect(await role.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.getByTestId('signed-state').count()).toBe(0);

    // Filled in its box over the first document's page.
    await page.getByTestId('set-document').nth(0).getByRole('button', { name: /Ver/ }).click();
    await page.getByRole('textbox', { name: 'Cargo · Contrato.pdf', exact: true }).fill('Directora de compras');
    await signAll.click();
    await page.getByTestId('signed-state').waitFor();
    const links = page.getByTestId('download-link');
    const texts: string[] = [];
    for (let i = 0; i < 2; i++) {
      const bytes = Buffer.from(await (await fetch(new URL((await links.nth(i).getAttribute('href'))!, s.baseUrl))).arrayBuffer());
      texts.push(pdfToText(bytes));
      const report = await pdfsig(bytes, rootPem);
      expect(report.signatures, report.output).toHaveLength(1);
      expect(report.signatures[0], report.output).toMatchObject({ valid: true, trusted: true });
    }
    expect(texts[0]).toContain('Directora de compras');
    expect(texts[0]).not.toContain('AG');
    expect(texts[1]).toContain('AG');
    expect(texts[1]).not.toContain('Directora');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('with an own certificate (CERT), stops before the certificate is opened, and sends the values with it', async () => {
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: 'Poder',
      stickers: [{ authority: 'CERT', data: 'lucia@example.com', name: 'Lucia Mendez', page: 0, rect: rect(60, 60, 220, 70) }],
      signer_fields: [{ type: 'text', signer: 0, page: 0, rect: rect(60, 700), label: 'Folio', format: '[0-9]{4}', required: true }],
    });
    const { page, problems } = await phone(doc.stickers[0].signer_url);
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') {
        sent.push(new URL(r.url()).pathname);
      }
    });
    const folio = listed(page, /Folio/);
    await folio.fill('12a');
    await page.locator('#cert-file').setInputFiles({ name: 'lucia.p12', mimeType: 'application/octet-stream', buffer: lucia.p12Legacy });
    await page.locator('#cert-password').fill(lucia.password);
    await page.locator('#cert-consent').check();
    const signWithCert = page.getByRole('button', { name: 'Firmar con mi certificado' });
    await signWithCert.click();
    await expect.poll(() => folio.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`#${(await folio.getAttribute('aria-describedby'))!}`).textContent()).toBe(
      'El valor no tiene el formato pedido.',
    );
    expect(sent).toEqual([]);

    await folio.fill('0427');
    await signWithCert.click();
    await page.getByTestId('own-certificate').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Confirmar y firmar' }).click();
    await page.getByTestId('signed-state').waitFor({ timeout: 30_000 });
    expect(sent.filter((p) => p.endsWith('/certificate/prepare'))).toHaveLength(1);
    const href = (await page.getByTestId('download-link').getAttribute('href'))!;
    const signed = Buffer.from(await (await fetch(new URL(href, s.baseUrl))).arrayBuffer());
    expect(pdfToText(signed)).toContain('0427');
    const report = await pdfsig(signed, ca.rootPem);
    expect(report.signatures, report.output).toHaveLength(1);
    expect(report.signatures[0], report.output).toMatchObject({ valid: true, trusted: true, commonName: 'Lucia Mendez' });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

/** The id of the field labelled `label` in the list (its control carries it). */
async function fieldId(page: Page, label: string): Promise<string> {
  return (await listed(page, label).getAttribute('data-field-id'))!;
}
