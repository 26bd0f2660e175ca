// What a template's browser may load: nothing but the template itself and data: URLs.
//
// A template is markup written by an account and filled with values from API callers, so the
// browser treats it as hostile: JavaScript is off and nothing may leave the machine. A template
// that could fetch would be an SSRF probe (http://169.254.169.254/, http://10.0.0.1/admin,
// services on loopback) and a tracking beacon (an <img> that tells a third party when and where a
// document was generated). Only data: URLs load; everything a template needs must be inlined.
import type { BrowserContext, BrowserContextOptions, Route } from 'playwright-core';

/** Chromium's command line: no background traffic of its own, and no host name ever resolves. */
export const LAUNCH_ARGS = [
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
export const DOCUMENT_URL = 'https://template.sello.invalid/';

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

/** Each render's browser context: no JavaScript, no service workers, no downloads. */
export const SANDBOX_CONTEXT: BrowserContextOptions = {
  javaScriptEnabled: false,
  // Service workers could serve or fetch outside the route handler; with JavaScript off
  // none can register, this is belt and braces.
  serviceWorkers: 'block',
  acceptDownloads: false,
};

/**
 * Routes every request of the context: the first navigation to DOCUMENT_URL answers the template
 * under DOCUMENT_CSP, everything else goes through blockNetwork.
 */
export async function serveTemplateOnly(context: BrowserContext, html: string): Promise<void> {
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
