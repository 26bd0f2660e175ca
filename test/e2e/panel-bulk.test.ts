// Bulk send in the panel, in Chromium as a person does it: the draft the prepare page keeps in
// IndexedDB (seeded here with the same database, store and key as web/src/panel/draft-store.ts),
// the service's row limit said and a file over it not sent, a CSV file written by a spreadsheet
// (byte-order mark, semicolons, a quoted field holding the separator) with one address that
// cannot be one, the rows and that problem shown before sending, an answer lost on the way and
// Send pressed again (the same Idempotency-Key: one run), the run page's progress bar reaching the
// end as the page asks again, then no more asking, three documents made and the bad row refused
// with the field named, and the run in the list of runs; axe-core finds nothing serious.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitePanelUser } from '../../src/domain/panel/invite-panel-user.js';
import { findAccountByWebId } from '../../src/store/accounts-repo.js';
import { launchChromium, pageProblems } from '../helpers/browser.js';
import { jobRunner, type JobRunner } from '../helpers/jobs.js';
import { signInTokenFor } from '../helpers/panel.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let s: TestServer;
let jobs: JobRunner;
let browser: Browser;
let page: Page;
let problems: string[];
let pdf: string;

const CSV = [
  '\uFEFFname;email',
  '"Ruiz; Ana";ana@example.com',
  'Bob;bob@example.com',
  'Carla;carla@example',
  'Dan;dan@example.com',
  '',
].join('\r\n');

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  // A limit of four rows: the file of four goes, one of five is refused before sending.
  [s, browser] = await Promise.all([startTestServer({ env: { SELLO_BULK_MAX_ROWS: '4' } }), launchChromium()]);
  jobs = jobRunner(s.connectionString, s.deps);
  pdf = (await makePdf([A4])).toString('base64');
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
  page = await context.newPage();
  problems = pageProblems(page);
  page.on('dialog', (d) => void d.accept());
  await invitePanelUser(s.deps, { webId: s.creds.webId, email: 'office@example.com', language: 'en' });
  await page.addInitScript(() => window.localStorage.setItem('sello-panel-lang', 'en'));
  await page.goto(`${s.baseUrl}/panel/sign-in#token=${await signInTokenFor(s, 'office@example.com')}`);
  // Signed in: the header's sign-out button (the account has no documents to list yet).
  await page.getByTestId('sign-out').waitFor();
});
afterAll(async () => {
  await browser?.close();
  await jobs?.close();
  await s?.close();
});

/** Puts a draft where draft-store.ts keeps it, as the prepare page's "Send to many" leaves it. */
async function seedDraft(payload: Record<string, unknown>) {
  await page.evaluate(
    (p) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('sello-panel', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('drafts');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction('drafts', 'readwrite');
          tx.objectStore('drafts').put({ version: 1, payload: p, ui: { fileName: 'contrato.pdf' }, savedAt: Date.now() }, 'current');
          tx.oncomplete = () => {
            open.result.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
    payload,
  );
}

/**
 * axe-core's serious and critical violations on the page as it is. The panel's CSP refuses an
 * injected script tag, so axe is evaluated through the DevTools protocol (as account-panel.test.ts does).
 */
async function axeViolations(): Promise<string[]> {
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

async function runsOfAccount(): Promise<string[]> {
  const account = (await findAccountByWebId(s.deps.db, s.creds.webId))!;
  const runs = await s.deps.db.selectFrom('bulk_runs').select('bulk_id').where('account_id', '=', account.id).execute();
  return runs.map((r) => r.bulk_id);
}

describe('bulk send in the panel', () => {
  it('without a draft, the page says so and leads to the prepare page', async () => {
    await page.getByRole('link', { name: 'Bulk send' }).click();
    await page.getByTestId('no-draft').waitFor();
    expect(await page.getByTestId('no-draft').getByRole('link').getAttribute('href')).toBe('/panel/send');
    await page.getByTestId('bulk-no-runs').waitFor();
  });

  it('a CSV file for the draft: rows previewed with the bad address, one run sent despite a lost answer, its progress to the end', async () => {
    await seedDraft({
      b64_doc: pdf,
      name: 'Contrato {{row.name}}',
      stickers: [
        { authority: 'EMAIL_LINK', name: '{{row.name}}', data: '{{row.email}}', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
      ],
    });
    // The page's timers under the test's hand (time flows until paused): the run page's polling is
    // driven below rather than waited for.
    await page.clock.install();
    await page.reload();
    await page.getByTestId('bulk-source').waitFor();
    expect(await page.getByTestId('bulk-source-line').textContent()).toBe('PDF file: contrato.pdf');
    expect(await page.getByTestId('bulk-placeholders').locator('li').allTextContents()).toEqual(['{{row.name}}', '{{row.email}}']);
    expect(await page.getByTestId('bulk-limit').textContent()).toBe('Up to 4 rows per send.');

    const csv = page.getByLabel('CSV file');
    await csv.setInputFiles({ name: 'five.csv', mimeType: 'text/csv', buffer: Buffer.from(`${CSV}Eve;eve@example.com\r\n`, 'utf8') });
    expect(await page.getByTestId('bulk-over-limit').textContent()).toBe('The file has 5 rows; the most is 4.');
    expect(await page.getByTestId('bulk-send').isDisabled()).toBe(true);

    await csv.setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV, 'utf8') });
    await page.getByTestId('bulk-over-limit').waitFor({ state: 'detached' });
    // Mapped by name at once.
    expect(await page.getByTestId('map-name').inputValue()).toBe('name');
    expect(await page.getByTestId('map-email').inputValue()).toBe('email');
    expect(await page.getByTestId('bulk-problem-count').textContent()).toBe(
      '1 of 4 rows have problems: the service will refuse them unless they are fixed.',
    );
    expect(await page.getByTestId('bulk-row-0').locator('td').allTextContents()).toEqual(['1', 'Ruiz; Ana', 'ana@example.com', 'Fine']);
    expect(await page.getByTestId('bulk-row-2').locator('td').last().textContent()).toBe(
      'signer 1: “carla@example” does not fit their verification',
    );

    expect(await axeViolations()).toEqual([]);

    // The first answer is lost after the service made the run; Send again carries the same key.
    const keys: string[] = [];
    await page.route('**/panel/api/bulk', async (route) => {
      keys.push(route.request().headers()['idempotency-key']);
      if (keys.length === 1) {
        await route.fetch();
        await route.abort('failed');
      } else {
        await route.continue();
      }
    });
    await page.getByTestId('bulk-send').click();
    await page.getByRole('alert').filter({ hasText: 'Failed to fetch' }).waitFor();
    expect(await runsOfAccount()).toHaveLength(1);
    await page.getByTestId('bulk-send').click();
    await page.waitForURL(/\/panel\/bulk\/[^/]+$/);
    await page.unroute('**/panel/api/bulk');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    const runs = await runsOfAccount();
    expect(runs).toHaveLength(1);
    expect(page.url()).toBe(`${s.baseUrl}/panel/bulk/${runs[0]}`);

    // Nothing made yet: the run waits for its job.
    const bar = page.getByRole('progressbar', { name: 'Progress of the send' });
    await bar.waitFor();
    expect(await bar.getAttribute('aria-valuenow')).toBe('0');
    expect(await page.getByTestId('bulk-run-state').textContent()).toBe('Running');
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 50);
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes(`/panel/api/bulk/${runs[0]}`)) {
        asked.push(r.url());
      }
    });
    await jobs.runDue();
    // The page asks again when its interval has passed, and then shows the end.
    await page.clock.runFor(1500);
    await page.locator('[role="progressbar"][aria-valuenow="100"]').waitFor();
    await page.getByTestId('bulk-run-state').filter({ hasText: 'Completed' }).waitFor();
    // Completed: no more asking, however long the page stays open.
    const askedAtEnd = asked.length;
    expect(askedAtEnd).toBeGreaterThan(0);
    await page.clock.runFor(15_000);
    // A request of the test's own after those 15 s: any poll they made was sent before it.
    await page.evaluate(() => fetch('/panel/api/session').then((r) => r.status));
    expect(asked).toHaveLength(askedAtEnd);
    // Time flows again for the rest (the document page below waits on timers of its own).
    await page.clock.resume();
    expect(await page.getByTestId('bulk-created').textContent()).toBe('3');
    expect(await page.getByTestId('bulk-refused').textContent()).toBe('1');
    expect(await page.getByTestId('bulk-not-made').textContent()).toBe('0');
    const refused = (await page.getByTestId('bulk-outcome-2').textContent()) ?? '';
    expect(refused).toContain('stickers[0].data');
    expect(refused).toMatch(/^3[A-Z_]+ /);

    expect(await axeViolations()).toEqual([]);

    // The three documents exist, each with its row's signer, and each row links to its own.
    const hrefs = await Promise.all([0, 1, 3].map((i) => page.getByTestId(`bulk-outcome-${i}`).getByRole('link').getAttribute('href')));
    const tickets = hrefs.map((h) => decodeURIComponent(h!.replace('/panel/documents/', '')));
    const listed = (await s.client.listDocuments({ limit: 50 })).documents;
    const byTicket = new Map(listed.map((d) => [d.document_ticket, d]));
    expect(tickets.map((t) => byTicket.get(t)?.name)).toEqual(['Contrato Ruiz; Ana.pdf', 'Contrato Bob.pdf', 'Contrato Dan.pdf']);
    expect(listed).toHaveLength(3);
    await page.getByTestId('bulk-outcome-3').getByRole('link').click();
    await page.getByText('dan@example.com').first().waitFor();

    // The run in the list, below the draft still kept.
    await page.getByRole('link', { name: 'Bulk send' }).click();
    await page.getByTestId('bulk-source').waitFor();
    const row = page.getByTestId(`bulk-run-${runs[0]}`);
    await row.waitFor();
    expect((await row.locator('td').allTextContents()).slice(1)).toEqual(['Completed', '4', '3', '1']);
    // The one failed load is the answer this test dropped.
    expect(problems).toEqual([expect.stringMatching(/^console error: Failed to load resource: net::ERR_FAILED at .*\/panel\/api\/bulk$/)]);
  });
});
