// html → PDF with Chromium (playwright-core driving Debian's /usr/bin/chromium).
//
// A template is markup written by an account and filled with values from API callers, so the
// browser treats it as hostile: JavaScript is off and nothing may leave the machine. A template
// that could fetch would be an SSRF probe (http://169.254.169.254/, http://10.0.0.1/admin,
// services on loopback) and a tracking beacon (an <img> that tells a third party when and where a
// document was generated). Only data: URLs load; everything a template needs must be inlined.
//
// One Chromium serves every render (launched on first use, relaunched if it died); each render
// gets a fresh browser context (no cookies, cache or storage shared between documents), and at
// most `pages` renders run at once, the rest wait in FIFO order.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { chromium, type Browser, type BrowserContext, type Route } from 'playwright-core';
import { TemplateError } from './types.js';

export interface HtmlRendererOptions {
  /** The Chromium binary; Debian's package installs it at /usr/bin/chromium. */
  executablePath?: string;
  /** Renders running at once (one browser context and page each); default 4. */
  pages?: number;
  /**
   * Time allowed for one render (context, page load, PDF) in ms, not counting the wait for a slot
   * or the browser's launch (bounded on its own); default 30000.
   */
  timeoutMs?: number;
}

export interface RenderOptions {
  /** Overrides the renderer's timeoutMs for this render. */
  timeoutMs?: number;
}

const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  // Request interception (context.route below) does not see everything the browser connects
  // for: measured on Chromium 156, <link rel=prefetch> is fetched and <link rel=preconnect> /
  // dns-prefetch open connections without passing through the route handler (the document's CSP
  // stops the prefetch, nothing else stops the preconnect). Failing every host resolution (IP
  // literals included, checked for 127.0.0.1 and [::1]) stops them; the browser needs no network
  // at all, since Playwright talks to it over a pipe and templates arrive through the route.
  '--host-resolver-rules=MAP * ~NOTFOUND',
];

/** Where the template's document appears to come from; `.invalid` never resolves (RFC 2606). */
const DOCUMENT_URL = 'https://template.sello.invalid/';

/**
 * Belt and braces over the route handler and the resolver rule: the document itself may load
 * only inline styles and data: URLs, so Chromium refuses other loads before attempting them.
 */
const DOCUMENT_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline' data:",
  'img-src data:',
  'font-src data:',
  'media-src data:',
  'frame-src data:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** How long closing a timed-out render's context may take before the browser counts as wedged. */
const CLEANUP_GRACE_MS = 10_000;
const LAUNCH_TIMEOUT_MS = 30_000;

export class HtmlRenderer {
  readonly #executablePath: string;
  readonly #pages: number;
  readonly #timeoutMs: number;
  /** The running browser, once launched; null before, and after it died or was discarded. */
  #browser: Browser | null = null;
  /** The launch in progress, shared by the renders that arrive meanwhile. */
  #launching: Promise<Browser> | null = null;
  #active = 0;
  readonly #waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];
  #closed = false;

  constructor(options: HtmlRendererOptions = {}) {
    this.#executablePath = options.executablePath ?? '/usr/bin/chromium';
    this.#pages = options.pages ?? 4;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    if (!Number.isInteger(this.#pages) || this.#pages < 1) {
      throw new RangeError(`pages must be a positive integer, got ${options.pages}`);
    }
    checkTimeout(this.#timeoutMs);
  }

  /** The PDF of an html document; throws RENDER_TIMEOUT or RENDERER_UNAVAILABLE. */
  async render(html: string, options: RenderOptions = {}): Promise<Buffer> {
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    checkTimeout(timeoutMs);
    await this.#acquire();
    try {
      for (let attempt = 1; ; attempt++) {
        const browser = await this.#getBrowser();
        try {
          return await this.#renderWithin(browser, html, timeoutMs);
        } catch (error) {
          // The browser died before this template was given to it (it crashed or was killed
          // between renders, and the 'disconnected' event had not arrived yet): nothing of this
          // render caused it, so it runs once more on a new browser.
          if (error instanceof BrowserGone && attempt === 1) {
            if (this.#browser === browser) {
              this.#browser = null;
            }
            continue;
          }
          throw error instanceof BrowserGone ? error.reported : error;
        }
      }
    } finally {
      this.#release();
    }
  }

  /** Closes the browser; renders waiting for a slot fail, later renders are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiter of this.#waiting.splice(0)) {
      waiter.reject(closedError());
    }
    const browser = this.#browser;
    this.#browser = null;
    // A launch still in progress sees #closed when it finishes and closes its own browser.
    await Promise.all([browser?.close().catch(() => undefined), this.#launching?.catch(() => undefined)]);
  }

  async #renderWithin(browser: Browser, html: string, timeoutMs: number): Promise<Buffer> {
    let contextPromise: Promise<BrowserContext> | undefined;
    let templateGiven = false;
    const work = (async () => {
      contextPromise = browser.newContext({
        javaScriptEnabled: false,
        // Service workers could serve or fetch outside the route handler; with JavaScript off
        // none can register, this is belt and braces.
        serviceWorkers: 'block',
        acceptDownloads: false,
      });
      const context = await contextPromise;
      // The template is served as the response to one navigation to a made-up https address
      // rather than written into about:blank with page.setContent, so that it carries a
      // Content-Security-Policy header (a <meta> policy would have to be spliced into the
      // template). Measured on Chromium 156, the policy stops <link rel=prefetch>, which the route
      // handler never sees. The document is served once: a <meta http-equiv=refresh> back to it
      // is refused like any other navigation.
      let served = false;
      await context.route('**/*', (route) => {
        const request = route.request();
        if (!served && request.url() === DOCUMENT_URL && request.isNavigationRequest()) {
          served = true;
          return route.fulfill({
            status: 200,
            contentType: 'text/html; charset=utf-8',
            headers: { 'content-security-policy': DOCUMENT_CSP },
            body: html,
          });
        }
        return blockNetwork(route);
      });
      const page = await context.newPage();
      templateGiven = true;
      await page.goto(DOCUMENT_URL, { waitUntil: 'load', timeout: timeoutMs });
      const pdf = await page.pdf({ format: 'A4', preferCSSPageSize: true, printBackground: true });
      return Buffer.from(pdf);
    })();
    // After a timeout the work is abandoned and its context closed under it: its rejection
    // ("Target closed") is expected and must not surface as an unhandled rejection.
    void work.catch(() => undefined);

    let timer: NodeJS.Timeout | undefined;
    const timedOut = Symbol('timed out');
    const deadline = new Promise<typeof timedOut>((resolve) => {
      timer = setTimeout(() => resolve(timedOut), timeoutMs);
    });
    try {
      const result = await Promise.race([work, deadline]);
      if (result !== timedOut) {
        return result;
      }
    } catch (error) {
      if (!browser.isConnected()) {
        const reported = new TemplateError('RENDERER_UNAVAILABLE', `Chromium exited during the render: ${message(error)}`);
        throw templateGiven ? reported : new BrowserGone(reported);
      }
      throw error;
    } finally {
      clearTimeout(timer);
      if (contextPromise) {
        await this.#dispose(browser, contextPromise);
      }
    }
    throw new TemplateError('RENDER_TIMEOUT', `the html template did not render within ${timeoutMs} ms`, {
      timeoutMs,
    });
  }

  /**
   * Closes a render's context. If that does not finish in time the browser is wedged (a renderer
   * stuck in layout can block the browser process): it is dropped and closed, which kills it if it
   * does not exit, and the next render launches a new one.
   */
  async #dispose(browser: Browser, contextPromise: Promise<BrowserContext>): Promise<void> {
    const closed = contextPromise
      .then((context) => context.close())
      .then(
        () => true,
        // Closing fails when the browser is gone already: nothing is left to clean up then.
        () => !browser.isConnected(),
      );
    const ok = await Promise.race([closed, sleep(CLEANUP_GRACE_MS).then(() => false)]);
    if (!ok && browser.isConnected()) {
      this.#discard(browser);
    }
  }

  #discard(browser: Browser): void {
    if (this.#browser === browser) {
      this.#browser = null;
    }
    // Playwright's close asks the browser to exit and SIGKILLs its process group after 30 s.
    void browser.close().catch(() => undefined);
  }

  #getBrowser(): Promise<Browser> {
    if (this.#closed) {
      return Promise.reject(closedError());
    }
    if (this.#browser?.isConnected()) {
      return Promise.resolve(this.#browser);
    }
    this.#browser = null;
    // A failed launch is not kept: the next render tries again (e.g. once the package is installed).
    this.#launching ??= this.#launch().finally(() => {
      this.#launching = null;
    });
    return this.#launching;
  }

  async #launch(): Promise<Browser> {
    try {
      await access(this.#executablePath, constants.X_OK);
    } catch {
      throw new TemplateError(
        'RENDERER_UNAVAILABLE',
        `Chromium is not installed at ${this.#executablePath}; install the Debian package chromium`,
        { executablePath: this.#executablePath },
      );
    }
    let browser: Browser;
    try {
      browser = await chromium.launch({
        executablePath: this.#executablePath,
        headless: true,
        args: LAUNCH_ARGS,
        timeout: LAUNCH_TIMEOUT_MS,
      });
    } catch (error) {
      throw new TemplateError('RENDERER_UNAVAILABLE', `Chromium at ${this.#executablePath} failed to start: ${message(error)}`, {
        executablePath: this.#executablePath,
      });
    }
    if (this.#closed) {
      await browser.close().catch(() => undefined);
      throw closedError();
    }
    // A crashed or killed browser is forgotten so the next render relaunches it.
    browser.on('disconnected', () => {
      if (this.#browser === browser) {
        this.#browser = null;
      }
    });
    this.#browser = browser;
    return browser;
  }

  #acquire(): Promise<void> {
    if (this.#closed) {
      return Promise.reject(closedError());
    }
    if (this.#active < this.#pages) {
      this.#active++;
      return Promise.resolve();
    }
    // The slot is handed over by #release, so #active already counts this render when it resumes.
    return new Promise((resolve, reject) => this.#waiting.push({ resolve, reject }));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) {
      next.resolve();
    } else {
      this.#active--;
    }
  }
}

/**
 * Every request the page makes: data: URLs load, everything else is refused. The main frame's own
 * navigations (a <meta http-equiv=refresh>) are aborted as "aborted", which leaves the page on the
 * template instead of committing an error page that would be printed in its place.
 */
function blockNetwork(route: Route): Promise<void> {
  const request = route.request();
  if (request.isNavigationRequest()) {
    let mainFrame = true;
    try {
      mainFrame = request.frame().parentFrame() === null;
    } catch {
      // Requests without a frame (workers) count as the page's own: refused.
    }
    if (mainFrame || !request.url().startsWith('data:')) {
      return route.abort('aborted');
    }
    return route.continue();
  }
  return request.url().startsWith('data:') ? route.continue() : route.abort('blockedbyclient');
}

/** Internal: the browser was found dead before the template reached it. */
class BrowserGone extends Error {
  constructor(readonly reported: TemplateError) {
    super(reported.message);
  }
}

function checkTimeout(timeoutMs: number): void {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`timeoutMs must be a positive number, got ${timeoutMs}`);
  }
}

function closedError(): TemplateError {
  return new TemplateError('RENDERER_UNAVAILABLE', 'the html renderer is closed');
}

function message(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0] : String(error);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
