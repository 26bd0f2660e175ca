// html → PDF with Chromium (playwright-core driving Debian's /usr/bin/chromium).
//
// Templates are hostile: html-sandbox.ts keeps JavaScript off and everything but the template
// and data: URLs out.
//
// One Chromium serves every render (launched on first use, relaunched if it died); each render
// gets a fresh browser context (no cookies, cache or storage shared between documents), and at
// most `pages` renders run at once, the rest wait in FIFO order.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { DOCUMENT_URL, LAUNCH_ARGS, SANDBOX_CONTEXT, serveTemplateOnly } from './html-sandbox.js';
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
      contextPromise = browser.newContext(SANDBOX_CONTEXT);
      const context = await contextPromise;
      await serveTemplateOnly(context, html);
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
