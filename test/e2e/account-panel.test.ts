// The account panel in Chromium, as its user goes through it: invited by the operator, signs in from
// the emailed link (read from the outbox), finds a document by its signer and downloads its report,
// corrects a signer of another document to SMS (a phone that is not E.164 is refused at the field)
// and cancels that document's workflow from its page, finds a set by its name, downloads a sample
// PDF made from a template (read back with pdftotext),
// sets the webhook URL and rotates its secret, sees a failed delivery and sends it again (the local
// receiver then gets it, signed with the new secret), subscribes a URL to one event and deletes that
// subscription, rotates an API key and the old key is refused.
// Every panel page passes axe-core with no serious or critical violation, in both languages of the
// switch, and nothing goes wrong in the console.
import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { sql } from 'kysely';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelloClient } from '../../src/client/index.js';
import { emitEvent } from '../../src/domain/events/emit-event.js';
import { MAX_ATTEMPTS } from '../../src/domain/events/retry-schedule.js';
import { invitePanelUser } from '../../src/domain/panel/invite-panel-user.js';
import { guardedFetch, isPublicAddress } from '../../src/net/url-guard.js';
import { findAccountByWebId } from '../../src/store/accounts-repo.js';
import { listChannelMessages } from '../../src/store/channel-messages-repo.js';
import { listMessages } from '../../src/store/mail-repo.js';
import { apiError } from '../helpers/api-error.js';
import { launchChromium, pageProblems } from '../helpers/browser.js';
import { jobRunner, type JobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let s: TestServer;
let jobs: JobRunner;
let browser: Browser;
let receiver: Server;
let receiverStatus = 500;
let hookUrl = '';
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
let leaseTicket = '';
let offerTicket = '';

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(receiverStatus).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
  [s, browser] = await Promise.all([
    startTestServer({
      fetchUrl: (url, opts) => guardedFetch(url, { ...opts, isAllowedAddress: (ip) => ip === '127.0.0.1' || isPublicAddress(ip) }),
    }),
    launchChromium(),
  ]);
  jobs = jobRunner(s.connectionString, s.deps);
  const pdf = (await makePdf([A4])).toString('base64');
  const box = { page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } };
  leaseTicket = (
    await s.client.createDocument({
      b64_doc: pdf,
      name: 'Lease',
      stickers: [{ authority: 'EMAIL_LINK', data: 'carla@example.com', name: 'Carla Ruiz', ...box }],
    })
  ).document_ticket;
  await s.client.createDocumentSet({ name: 'Payroll' });
  await s.client.createDocumentSet({ name: 'Onboarding' });
  await s.client.saveTemplate({
    template_type: 'html',
    template_name: 'contrato',
    template_data: Buffer.from(
      '<!doctype html><html><body><p>Cliente: <span class="svc-template-field" id="client">CLIENT</span></p></body></html>',
    ).toString('base64'),
  });
  // The service runs this one's flow, so its page offers to resend, correct, extend and cancel.
  offerTicket = (
    await s.client.createDocument({
      b64_doc: pdf,
      name: 'Offer',
      stickers: [{ authority: 'EMAIL_LINK', data: 'dan@example.com', name: 'Dan', ...box }],
      workflow: {},
    })
  ).document_ticket;
});
afterAll(async () => {
  await browser?.close();
  await jobs?.close();
  await s?.close();
  receiver?.close();
});

/**
 * axe-core in the page: the serious and critical violations, each with where it is. The panel's CSP
 * refuses a script tag added to the page (page.addScriptTag is blocked, as any injected script
 * should be), so axe's source from node_modules is evaluated through the DevTools protocol, which
 * CSP does not govern; the page keeps its real CSP for everything else this test sees.
 */
async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) {
    await page.evaluate(await readFile(AXE, 'utf8'));
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

/** Checks the page as it is now, in Spanish and in English. */
async function checkAccessible(page: Page, name: string) {
  for (const lang of ['es', 'en']) {
    await page.getByTestId(`lang-${lang}`).click();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
    expect(await axeViolations(page), `${name} (${lang})`).toEqual([]);
  }
}

function signatureValid(d: { headers: IncomingHttpHeaders; body: string }, secret: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${d.headers['webhook-id']}.${d.headers['webhook-timestamp']}.${d.body}`)
    .digest('base64');
  return String(d.headers['webhook-signature']).split(' ').includes(`v1,${expected}`);
}

describe('account panel', () => {
  it('invite, sign in from the email, find a document, download its report, webhook, delivery, API key', async () => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      locale: 'es-ES',
      acceptDownloads: true,
    });
    const page = await context.newPage();
    const problems = pageProblems(page);
    page.on('dialog', (d) => void d.accept());

    // The sign-in page, before anything.
    const response = await page.goto(`${s.baseUrl}/panel/sign-in`);
    expect(response!.headers()['content-security-policy']).toMatch(/^default-src 'self'; script-src 'self' 'wasm-unsafe-eval';/);
    await page.getByRole('heading', { name: 'Entrar al panel' }).waitFor();
    await checkAccessible(page, 'sign-in');
    // The check can fail: an image without a text alternative is a critical violation to axe.
    await page.evaluate(() =>
      document.body.append(
        Object.assign(document.createElement('img'), {
          src: 'data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==',
        }),
      ),
    );
    expect((await axeViolations(page)).join('\n')).toMatch(/^image-alt \(critical\)/);
    await page.reload();

    // The operator invites; the link is read from the outbox.
    await invitePanelUser(s.deps, { webId: s.creds.webId, email: 'owner@example.com', language: 'en' });
    const mail = (await listMessages(s.deps, 10)).find((m) => m.kind === 'panel_sign_in' && m.recipient === 'owner@example.com')!;
    const link = /https?:\/\/\S+\/panel\/sign-in#token=[A-Za-z0-9_-]{43}/.exec(mail.body_text)![0];
    await page.goto(link);
    await page.getByTestId('documents').waitFor();
    expect(new URL(page.url()).pathname).toBe('/panel');
    const cookies = await context.cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite, c.path])).toEqual([['sello_panel', true, 'Strict', '/panel']]);
    await checkAccessible(page, 'documents');

    // Find the document by its signer with the keyboard alone: type, Enter, Tab to the link, Enter.
    await page.getByLabel('Search by name or signer').focus();
    await page.keyboard.type('carla@example');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('documents').locator('tbody tr').count()).toBe(1);
    let onLink = false;
    for (let i = 0; i < 20 && !onLink; i++) {
      await page.keyboard.press('Tab');
      onLink = await page.evaluate(() => document.activeElement?.textContent === 'Lease.pdf');
    }
    expect(onLink, 'the document link is reached with Tab').toBe(true);
    await page.keyboard.press('Enter');
    await page.getByTestId('chain').waitFor();
    expect(await page.getByTestId('chain').textContent()).toMatch(/^Chain intact/);
    expect(await page.getByTestId('signers').textContent()).toContain('Carla Ruiz');
    await checkAccessible(page, 'document');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-report').click()]);
    const report = JSON.parse(await readFile((await download.path())!, 'utf8'));
    expect(report).toEqual(await s.client.signatureReport(leaseTicket));
    expect(download.suggestedFilename()).toBe(`report-${leaseTicket}.json`);

    // A document whose flow the service runs: its actions (the correction form open) pass axe; the
    // flow is cancelled from the page, after the confirmation, and the page says so.
    await page.goto(`${s.baseUrl}/panel/documents/${offerTicket}`);
    await page.getByTestId('document-actions').waitFor();
    await page.getByRole('button', { name: 'Correct: Dan' }).click();
    await page.getByLabel('Name').waitFor();
    await checkAccessible(page, 'document with actions');
    // The signer moves to SMS: a phone without its country code is refused at the field, and nothing
    // is sent; in E.164 form it is saved, and the new link goes to that phone.
    const offerSigner = async () =>
      (await s.client.listDocuments({ from: 0, to: s.deps.clock.now().getTime() + 1000 })).documents.find(
        (x) => x.document_ticket === offerTicket,
      )!.signers[0];
    await page.getByLabel("Signer's verification").selectOption('SMS');
    await page.getByLabel("Signer's identifier (SMS)").fill('5512345678');
    await page.getByRole('button', { name: 'Save correction' }).click();
    await page.getByText('Not a phone number in international form (+ and 7 to 15 digits).').waitFor();
    expect(await page.getByLabel("Signer's identifier (SMS)").getAttribute('aria-invalid')).toBe('true');
    // Said as it appears: focus stays on the button, so a screen reader hears it only from an alert.
    expect(await page.getByRole('alert').filter({ hasText: 'Not a phone number' }).count()).toBe(1);
    await checkAccessible(page, 'correction refused at the field');
    expect(await offerSigner()).toMatchObject({ authority: 'EMAIL_LINK', data: 'dan@example.com' });
    await page.getByLabel("Signer's identifier (SMS)").fill('+525512345678');
    await page.getByRole('button', { name: 'Save correction' }).click();
    await expect.poll(() => page.getByTestId('action-status').textContent()).toBe('Signer corrected (Dan): the old link no longer works.');
    await expect.poll(() => page.getByTestId('signers').textContent()).toContain('SMS');
    expect(await offerSigner()).toMatchObject({ authority: 'SMS', data: '+525512345678' });
    const sms = (await listChannelMessages(s.deps, 10)).map((m) => [m.channel, m.kind, m.recipient, m.status]);
    expect(sms).toEqual([['sms', 'invitation', '+525512345678', 'queued']]);
    // The service took the new link to the phone: the page does not show it.
    expect(await page.getByTestId('new-signer-link').count()).toBe(0);
    // Then to SAT, an RFC and no email: the flow has nowhere to send the new link, so the page shows
    // it once (the old one is dead), and that link is the signer's.
    await page.getByRole('button', { name: 'Correct: Dan' }).click();
    await page.getByLabel("Signer's verification").selectOption('SAT');
    await page.getByLabel("Signer's identifier (SAT)").fill('GOMH800101AB1');
    await page.getByRole('button', { name: 'Save correction' }).click();
    await expect.poll(() => page.getByTestId('signers').textContent()).toContain('SAT');
    const shown = (await page.getByTestId('new-signer-link').textContent())!.trim();
    expect(shown).toMatch(new RegExp(`^${s.baseUrl}/sign/[A-Za-z0-9_-]{43}$`));
    const opened = await fetch(`${s.baseUrl}/sign/api/${shown.split('/').pop()}`);
    expect(opened.status).toBe(200);
    expect((await opened.json()).signer).toMatchObject({ authority: 'SAT', name: 'Dan' });
    await checkAccessible(page, 'new signer link shown');
    await page.getByTestId('cancel-workflow').click();
    await expect.poll(() => page.getByTestId('action-status').textContent()).toBe('Signing flow cancelled.');
    await expect.poll(() => page.locator('.doc-meta .badge').textContent()).toBe('Cancelled');
    expect(await page.getByTestId('cancel-workflow').count()).toBe(0);
    expect((await s.client.listDocuments({ from: 0, to: s.deps.clock.now().getTime() + 1000 })).documents).toContainEqual(
      expect.objectContaining({ document_ticket: offerTicket, status: 'cancelled' }),
    );

    // The sets and the templates: a template's fields, and a sample PDF made from it, downloaded.
    await page.getByRole('link', { name: 'Sets' }).click();
    await page.getByTestId('sets').waitFor();
    expect(await page.getByTestId('sets').locator('tbody tr').first().textContent()).toContain('Onboarding');
    await checkAccessible(page, 'sets');
    // Found by a part of its name; a state no set is in says that nothing matches.
    expect(await page.getByTestId('sets').locator('tbody tr').count()).toBe(2);
    await page.getByLabel('Search by name').fill('payr');
    await page.getByLabel('Search by name').press('Enter');
    await expect.poll(() => page.getByTestId('sets').locator('tbody tr').count()).toBe(1);
    expect(await page.getByTestId('sets').locator('tbody tr').textContent()).toContain('Payroll');
    await page.getByLabel('Status').selectOption('CLOSED');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.getByTestId('no-sets').textContent()).toBe('No sets match.');
    await checkAccessible(page, 'sets filtered');
    await page.getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('button', { name: 'contrato' }).click();
    await page.getByLabel('client').fill('Ana Sample');
    await checkAccessible(page, 'templates');
    await page.getByTestId('try-template').click();
    const [sample] = await Promise.all([page.waitForEvent('download'), page.getByTestId('try-download').click()]);
    expect(sample.suggestedFilename()).toBe('contrato-sample.pdf');
    const samplePdf = await readFile((await sample.path())!);
    expect(samplePdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(execFileSync('pdftotext', [(await sample.path())!, '-'], { encoding: 'utf8' })).toContain('Cliente: Ana Sample');
    expect(await s.deps.db.selectFrom('documents').select('id').execute()).toHaveLength(2);

    // The webhook: set the URL, rotate the secret (shown once).
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Webhook URL').fill(hookUrl);
    await page.getByRole('button', { name: 'Save URL' }).click();
    const firstSecret = (await page.getByTestId('webhook-secret').textContent())!;
    await page.getByTestId('rotate-secret').click();
    await expect.poll(async () => page.getByTestId('webhook-secret').textContent()).not.toBe(firstSecret);
    const secret = (await page.getByTestId('webhook-secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);

    // A test event reaches the receiver (which answers 500 for now), signed with the new secret.
    await page.getByTestId('test-event').click();
    await expect.poll(() => page.getByTestId('test-result').textContent()).toBe('The test event was not delivered: HTTP 500.');
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0].body)).toMatchObject({ notification_type: 'webhook_test', meta: { test: true } });
    expect(signatureValid(received[0], secret)).toBe(true);
    received.length = 0;

    // A delivery that fails for good (the receiver answers 500 to its last attempt)…
    const account = (await findAccountByWebId(s.deps.db, s.creds.webId))!;
    const doc = await s.deps.db.selectFrom('documents').select('id').where('ticket', '=', leaseTicket).executeTakeFirstOrThrow();
    const notificationId = await s.deps.db
      .transaction()
      .execute((trx) => emitEvent(trx, s.deps, { accountId: account.id, documentId: doc.id, kind: 'document_completed', meta: {} }));
    await sql`update notification_deliveries set attempts = ${MAX_ATTEMPTS - 1}
      where notification_id = (select id from notifications where notification_id = ${notificationId})`.execute(s.deps.db);
    await jobs.runDue();
    expect(received).toHaveLength(1);
    await page.reload();
    await page.getByLabel('Delivery state').selectOption('failed');
    const row = page.getByTestId('deliveries').locator('tbody tr').first();
    await expect.poll(() => row.textContent()).toContain('500');
    expect(await row.textContent()).toContain('Document completed');
    await checkAccessible(page, 'webhooks');
    // …sent again from the panel reaches the receiver, signed with the new secret.
    receiverStatus = 200;
    await page
      .getByRole('button', { name: /^Send again/ })
      .first()
      .click();
    await page.getByText('Delivery queued for now.').waitFor();
    await jobs.runDue();
    expect(received).toHaveLength(2);
    expect(JSON.parse(received[1].body).notification_id).toBe(notificationId);
    expect(signatureValid(received[1], secret)).toBe(true);
    await page.getByLabel('Delivery state').selectOption('delivered');
    await expect.poll(() => page.getByTestId('deliveries').locator('tbody tr').first().textContent()).toContain('200');

    // A subscription for one event: added (its secret shown once, the API lists it), then deleted.
    await page.getByLabel('Event', { exact: true }).selectOption('document_rejected');
    await page.getByLabel('Subscription URL').fill('https://hooks.example.com/rejected');
    await page.getByTestId('add-subscription').click();
    await page.getByTestId('subscription-secret').waitFor();
    const [sub] = (await s.client.listSubscriptions()).subscriptions;
    expect(sub).toMatchObject({ event: 'document_rejected', url: 'https://hooks.example.com/rejected', status: 'active' });
    await expect.poll(() => page.getByTestId(`subscription-${sub.id}`).textContent()).toContain('https://hooks.example.com/rejected');
    await checkAccessible(page, 'webhooks with a subscription');
    await page.getByRole('button', { name: 'Delete: document_rejected https://hooks.example.com/rejected' }).click();
    await page.getByText('Subscription deleted.').waitFor();
    // The list is read again after the answer is said: the row goes a moment later.
    await expect.poll(() => page.getByTestId(`subscription-${sub.id}`).count()).toBe(0);
    expect((await s.client.listSubscriptions()).subscriptions).toEqual([]);

    // Rotate the API key: the new one works, the old one is refused.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByTestId('keys').waitFor();
    await checkAccessible(page, 'keys');
    await page
      .getByRole('button', { name: /^Rotate/ })
      .first()
      .click();
    const newKey = (await page.getByTestId('new-api-key').textContent())!;
    expect(newKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await apiError(s.client.getAccount())).status).toBe(401);
    const renewed = new SelloClient({ baseUrl: s.baseUrl, webId: s.creds.webId, apiKey: newKey });
    expect((await renewed.getAccount()).web_id).toBe(s.creds.webId);

    // Usage, with its chart.
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByTestId('usage-chart').waitFor();
    expect(await page.getByTestId('usage-chart').getAttribute('aria-label')).toContain('Documents 2');
    await checkAccessible(page, 'usage');

    // Sign out: the panel is closed until the next link.
    await page.getByTestId('sign-out').click();
    await page.getByLabel('Correo electrónico').or(page.getByLabel('Email')).waitFor();
    expect((await page.request.get(`${s.baseUrl}/panel/api/session`)).status()).toBe(401);

    expect(problems).toEqual([]);
    await context.close();
  });
});
