// Debian's Chromium for the end-to-end tests, started the way this machine needs: as root without
// the sandbox, and without the background connections a closed network refuses.
import { chromium, type Browser, type Page } from 'playwright-core';

/** `extraArgs`: more switches, e.g. a fake camera (identity-camera.test.ts). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      ...extraArgs,
    ],
  });
}

/**
 * Collects what a page reports as going wrong: uncaught errors, console errors, and pdf.js's
 * warnings about its worker (it falls back to the main thread when the worker cannot start). Not
 * "Worker task was terminated": that is a render pdf.js was asked to cancel because the page drew
 * again (after a signature the page reloads its PDF), and it comes when the machine is slow.
 */
export function pageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    const cancelled = /Worker task was terminated/.test(m.text());
    if (m.type() === 'error' || (m.type() === 'warning' && /worker/i.test(m.text()) && !cancelled)) {
      problems.push(`console ${m.type()}: ${m.text()} at ${m.location().url}`);
    }
  });
  return problems;
}
