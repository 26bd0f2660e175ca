// The account panel as its readers read it, in Chromium on a desktop screen (1280 px) whose clock is
// in Madrid while the account's time zone is Mexico City: the history names signers (by name, or
// by address when they have none) and every action in words, the universal rendition included;
// the history PDF downloaded from an English panel is in English although the document is Spanish;
// the delivery log names documents and events in words, and at 1280 px no header, state or word is
// broken across lines (measured with Range rects, not a screenshot), nor at 660 px does the page
// scroll sideways; an expiration date picked in the panel is the end of that day in the account's
// zone, and the page says so where it is picked and where it is shown. Every date derives from the test's fixed clock.
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { sql } from 'kysely';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventLabel } from '../../src/domain/events/event-labels.js';
import { emitEvent } from '../../src/domain/events/emit-event.js';
import { MAX_ATTEMPTS } from '../../src/domain/events/retry-schedule.js';
import { invitePanelUser } from '../../src/domain/panel/invite-panel-user.js';
import { setAccountWebhook } from '../../src/domain/accounts/set-webhook.js';
import { guardedFetch, isPublicAddress } from '../../src/net/url-guard.js';
import { findAccountByWebId } from '../../src/store/accounts-repo.js';
import { launchChromium, pageProblems } from '../helpers/browser.js';
import { DAY, ddmmyyyy } from '../helpers/dates.js';
import { movableClock } from '../helpers/flow-clock.js';
import { jobRunner, type JobRunner } from '../helpers/jobs.js';
import { signInTokenFor } from '../helpers/panel.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { openAndSign } from '../helpers/signer-page.js';

const ACCOUNT_ZONE = 'America/Mexico_City';
const BROWSER_ZONE = 'Europe/Madrid';
const DESKTOP = { width: 1280, height: 900 };
const SMALL_TABLET = { width: 660, height: 900 };
// Fixed for the whole file at its start (so the jobs it schedules are due at once); every date
// below derives from it.
const clock = movableClock();

let s: TestServer;
let jobs: JobRunner;
let browser: Browser;
let receiver: Server;
let receiverStatus = 200;
let hookUrl = '';
let leaseTicket = '';
let offerTicket = '';
let brunoId = '';

const box = (x: number) => ({ page: 0, rect: { lx: x, ly: 60, tx: x + 150, ty: 120 } });

const sign = (signerUrl: string) => openAndSign(s.baseUrl, signerUrl);

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(receiverStatus).end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
  [s, browser] = await Promise.all([
    startTestServer({
      clock,
      fetchUrl: (url, opts) => guardedFetch(url, { ...opts, isAllowedAddress: (ip) => ip === '127.0.0.1' || isPublicAddress(ip) }),
    }),
    launchChromium(),
  ]);
  jobs = jobRunner(s.connectionString, s.deps);
  await sql`update accounts set time_zone = ${ACCOUNT_ZONE}`.execute(s.deps.db);
  await setAccountWebhook(s.deps, { webId: s.creds.webId, url: hookUrl });
  const pdf = (await makePdf([A4])).toString('base64');
  // A Spanish document (no language in its workflow: the operator's default, es) that the service
  // runs: Ana signs, Bruno (no name, an address only) is invited and has not signed yet.
  const lease = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Arrendamiento del local comercial de la avenida Insurgentes Sur',
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', ...box(40) },
      { authority: 'EMAIL_LINK', data: 'bruno@example.com', ...box(300) },
    ],
    workflow: {},
  });
  leaseTicket = lease.document_ticket;
  brunoId = lease.stickers[1].signer_id;
  await jobs.runDue();
  await sign(lease.stickers[0].signer_url);
  // One signed to the end, so its history holds the universal rendition.
  const done = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Recibo',
    stickers: [{ authority: 'EMAIL_LINK', data: 'carla@example.com', name: 'Carla Ruiz', ...box(40) }],
  });
  offerTicket = done.document_ticket;
  await sign(done.stickers[0].signer_url);
  await jobs.runDue();
});
afterAll(async () => {
  await browser?.close();
  await jobs?.close();
  await s?.close();
  receiver?.close();
});

/** A signed-in English panel at 1280 px, its computer's clock in Madrid. */
async function panel(): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-GB', timezoneId: BROWSER_ZONE, acceptDownloads: true });
  const page = await context.newPage();
  const problems = pageProblems(page);
  page.on('dialog', (d) => void d.accept());
  const email = `reader-${Math.random().toString(36).slice(2)}@example.com`;
  await invitePanelUser(s.deps, { webId: s.creds.webId, email, language: 'en' });
  await page.addInitScript(() => window.localStorage.setItem('sello-panel-lang', 'en'));
  await page.goto(`${s.baseUrl}/panel/sign-in#token=${await signInTokenFor(s, email)}`);
  await page.getByTestId('documents').waitFor();
  return { context, page, problems };
}

/**
 * The text runs of `selector`'s elements that break inside a word: for each word of each text node
 * (outside the cells meant to break anywhere: URLs, tickets, errors), a Range over it and the tops
 * of its client rects; more than one top is a word split across lines.
 */
function brokenWords(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const broken: string[] = [];
    for (const root of document.querySelectorAll(sel)) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (n.parentElement?.closest('.url-cell, .small, .visually-hidden')) {
          continue;
        }
        const text = n.textContent ?? '';
        for (const m of text.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(n, m.index);
          range.setEnd(n, m.index + m[0].length);
          const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (tops.size > 1) {
            broken.push(m[0]);
          }
        }
      }
    }
    return broken;
  }, selector);
}

/** How many lines the whole text of each element takes (distinct tops of its Range's rects). */
function linesOf(page: Page, selector: string): Promise<[string, number][]> {
  return page.evaluate((sel) => {
    return [...document.querySelectorAll(sel)].map((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      return [(el.textContent ?? '').trim(), tops.size] as [string, number];
    });
  }, selector);
}

describe('the panel, read', () => {
  it('names signers, says every action in words, and gives the history PDF in the panel language', async () => {
    const { context, page, problems } = await panel();
    // The documents list at 1280 px: no header on two lines, no word split (the long name wraps between words).
    expect((await linesOf(page, '[data-testid="documents"] thead th')).filter(([, lines]) => lines !== 1)).toEqual([]);
    expect(await brokenWords(page, '[data-testid="documents"]')).toEqual([]);
    await page.goto(`${s.baseUrl}/panel/documents/${leaseTicket}`);
    await page.getByTestId('chain').waitFor();
    const timeline = page.locator('.timeline');
    const text = (await timeline.textContent())!;
    // Ana by name and address, Bruno (no name) by address; never "Signer <id>".
    expect(text).toContain('Viewed · Ana García · ana@example.com');
    expect(text).toContain('Signed · Ana García · ana@example.com');
    expect(text).toMatch(/Invitation sent · The system · signer: bruno@example\.com/);
    expect(text).not.toContain(brunoId);
    expect(text).not.toMatch(/Signer [0-9a-f]{8}/);
    // The times are the account's, as the history PDF shows them, whatever the computer's zone.
    const history = await s.client.documentHistory(leaseTicket);
    const first = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: ACCOUNT_ZONE }).format(
      new Date(history.entries[0].at),
    );
    expect(await timeline.locator('time').first().textContent()).toBe(first);
    expect(await page.getByTestId('zone-note').textContent()).toBe(`Dates and times are in ${ACCOUNT_ZONE}, the account's time zone.`);

    // The document is Spanish; the panel is English, and so is the history PDF it downloads.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-history').click()]);
    const pdfText = execFileSync('pdftotext', ['-raw', (await download.path())!, '-'], { encoding: 'utf8' });
    expect(pdfText).toContain('Document history');
    expect(pdfText).not.toContain('Historial del documento');
    // Switched to Spanish, the panel asks for it in Spanish.
    await page.getByTestId('lang-es').click();
    expect(await page.getByTestId('download-history').getAttribute('href')).toBe(`/panel/api/documents/${leaseTicket}/history.pdf?lang=es`);
    await page.getByTestId('lang-en').click();

    // A document signed to the end: the universal rendition too is said in words, as is every action.
    await page.goto(`${s.baseUrl}/panel/documents/${offerTicket}`);
    await page.getByTestId('chain').waitFor();
    const actions = await page.locator('.timeline-action').allTextContents();
    expect(actions).toContain('Universal rendition signed (long-term validation)');
    expect(actions.filter((a) => /^[a-z0-9_]+$/.test(a))).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('at 1280 px the delivery log breaks no header, state or word, and names documents and events in words', async () => {
    const account = (await findAccountByWebId(s.deps.db, s.creds.webId))!;
    const doc = await s.deps.db.selectFrom('documents').select('id').where('ticket', '=', leaseTicket).executeTakeFirstOrThrow();
    const emit = (kind: 'document_completed' | 'workflow_expired' | 'original_signed') =>
      s.deps.db.transaction().execute((trx) => emitEvent(trx, s.deps, { accountId: account.id, documentId: doc.id, kind, meta: {} }));
    // Delivered, failed for good, and pending with a next attempt: every state the log shows.
    receiverStatus = 200;
    await emit('original_signed');
    await jobs.runDue();
    receiverStatus = 503;
    const failed = await emit('document_completed');
    await sql`update notification_deliveries set attempts = ${MAX_ATTEMPTS - 1}
      where notification_id = (select id from notifications where notification_id = ${failed})`.execute(s.deps.db);
    await emit('workflow_expired');
    await jobs.runDue();

    const { context, page, problems } = await panel();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    const table = page.getByTestId('deliveries');
    await expect.poll(() => table.locator('tbody tr').count()).toBeGreaterThanOrEqual(3);
    const rows = await table.locator('tbody tr').allTextContents();
    expect(rows.some((r) => r.includes('Delivered'))).toBe(true);
    expect(rows.some((r) => r.includes('Failed'))).toBe(true);
    expect(rows.some((r) => r.includes('Pending'))).toBe(true);
    // Events in words, documents by name: not identifiers and tickets.
    expect(rows.some((r) => r.includes(eventLabel('document_completed', 'en')))).toBe(true);
    expect(rows.filter((r) => r.includes('Arrendamiento del local comercial')).length).toBeGreaterThanOrEqual(3);
    expect(rows.some((r) => r.includes(leaseTicket) || r.includes('document_completed'))).toBe(false);

    // The layout: each header and each state on one line, and no word split anywhere.
    expect(await page.evaluate(() => document.documentElement.clientWidth)).toBe(DESKTOP.width);
    // (The buttons' column has a header for screen readers only, clipped to a pixel.)
    const heads = await linesOf(page, '[data-testid="deliveries"] thead th:not(:has(.visually-hidden))');
    expect(heads.map(([h]) => h)).toEqual(['Event', 'Time', 'State', 'Attempts', 'Last answer', 'Next attempt']);
    expect(heads.filter(([, lines]) => lines !== 1)).toEqual([]);
    const states = await linesOf(page, '[data-testid="deliveries"] tbody .badge');
    expect(states.length).toBeGreaterThanOrEqual(3);
    expect(states.filter(([, lines]) => lines !== 1)).toEqual([]);
    expect(await brokenWords(page, '[data-testid="deliveries"]')).toEqual([]);
    // The page itself does not scroll sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(DESKTOP.width);
    // A small tablet, just wider than the phone's one column of cards: a header may wrap between
    // its words, but still no word splits and the page does not scroll sideways.
    await page.setViewportSize(SMALL_TABLET);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(SMALL_TABLET.width);
    expect(await brokenWords(page, '[data-testid="deliveries"]')).toEqual([]);
    await page.setViewportSize(DESKTOP);
    // Subscribing offers each event in words, with the identifier receivers see.
    const options = await page.getByLabel('Event', { exact: true }).locator('option').allTextContents();
    expect(options).toContain('Universal rendition signed (universal_signed)');
    expect(options.filter((o) => /^[a-z0-9_]+$/.test(o))).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("an expiration date picked in Madrid is the end of that day in the account's zone, said where picked and shown", async () => {
    const { context, page, problems } = await panel();
    await page.goto(`${s.baseUrl}/panel/documents/${leaseTicket}`);
    await page.getByTestId('document-actions').waitFor();
    const field = page.getByLabel('New expiration date');
    // The hint names the zone the day ends in.
    const hintId = (await field.getAttribute('aria-describedby'))!;
    expect(await page.locator(`#${hintId}`).textContent()).toBe(
      `The flow expires at the end of that day (23:59) in ${ACCOUNT_ZONE}, the account's time zone.`,
    );
    // Twenty days after the test's clock, as the account's calendar has it.
    const day = ddmmyyyy(clock.now().getTime() + 20 * DAY, ACCOUNT_ZONE);
    const [dd, mm, yyyy] = day.split('/');
    await field.fill(`${yyyy}-${mm}-${dd}`);
    await page.getByRole('button', { name: 'Change expiration' }).click();
    await expect.poll(() => page.getByTestId('action-status').textContent()).toBe('Expiration changed.');

    // Stored as the last minute of that day in Mexico City (the API's rule for a date)...
    const stored = (await (await page.request.get(`${s.baseUrl}/panel/api/documents/${leaseTicket}`)).json()).workflow.expires_at;
    const inAccountZone = new Intl.DateTimeFormat('en-GB', {
      timeZone: ACCOUNT_ZONE,
      day: '2-digit',
      month: '2-digit',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(new Date(stored));
    expect(inAccountZone).toBe(`${dd}/${mm}/${yyyy}, 23:59`);
    // ...and shown so, with the zone named, although the computer is in Madrid (where it is
    // already the next morning, 06:59 or 07:59 as summer time has it).
    // (The month's abbreviation is the browser's: "Sep" or "Sept" depending on its ICU.)
    const month = new Intl.DateTimeFormat('en-GB', { month: 'long', timeZone: 'UTC' })
      .format(new Date(Date.UTC(Number(yyyy), Number(mm) - 1, 15)))
      .slice(0, 3);
    await expect
      .poll(() => page.getByTestId('expires-at').textContent())
      .toMatch(new RegExp(`^The signing flow expires on ${Number(dd)} ${month}[a-z]? ${yyyy}, 23:59 \\(${ACCOUNT_ZONE}\\)\\.$`));
    expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe(BROWSER_ZONE);
    expect(problems).toEqual([]);
    await context.close();
  });
});
