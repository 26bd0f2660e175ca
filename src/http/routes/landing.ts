// GET /: a small page for whoever opens the service's address in a browser: what this is and where
// to go next (the API reference, the OpenAPI document, health, the first requests). It loads
// nothing and names nothing of any account.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { HtmlPage } from '../../schemas/service.js';

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

import { escapeHtml } from '../../notify/email-templates.js';

export function landingPage(publicUrl: string): string {
  const base = escapeHtml(publicUrl);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sello</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1d232a}
h1{font-size:1.6rem;margin-bottom:.2rem}code,pre{font:14px/1.4 ui-monospace,monospace;background:#f2f4f7;border-radius:4px}
code{padding:.1rem .3rem}pre{padding:.8rem;overflow-x:auto}a{color:#0b57d0}li{margin:.3rem 0}
</style></head>
<body>
<h1>Sello</h1>
<p>A self-hostable electronic-signature service: an HTTP API to create documents from PDFs or templates,
place signature boxes for each signer, follow them and download the signed PDF (PAdES, with a time stamp),
and a signing page for each signer. Every API request is authenticated with an HMAC signature.</p>
<ul>
<li><a href="/docs">API reference</a> and the <a href="/openapi.json">OpenAPI document</a></li>
<li><a href="/healthz">Health</a> (<code>{"status":"ok"}</code> when the database answers)</li>
<li><a href="/pki/ca.pem">The service's root certificate</a>: trust it in a PDF reader to see its signatures as trusted</li>
</ul>
<h2>First requests</h2>
<p>The first start printed an account (<code>webId</code> and <code>apiKey</code>). A request is signed with
Base64(HMAC-SHA256(apiKey, the path and query of a GET, or the JSON body of a POST exactly as sent)):</p>
<pre>P='/api/document?limit=10'
SIG=$(printf '%s' "$P" | openssl dgst -sha256 -hmac "$API_KEY" -binary | base64 -w0)
curl -s "${base}$P" -H "authorization: svc $WEB_ID:$SIG"</pre>
<p>The repository's <code>examples/quickstart.mjs</code> creates a document, signs it, downloads the signed PDF and
prints its signature report: <code>WEB_ID=… API_KEY=… node examples/quickstart.mjs</code>.
The operator can check a signature with <code>sello auth check</code>.</p>
</body></html>
`;
}

export function landingRoutes(publicUrl: string) {
  const page = landingPage(publicUrl);
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/',
      {
        schema: {
          operationId: 'getLandingPage',
          summary: 'A page for people who open the service address in a browser',
          description: 'What the service is, and links to the API reference, the OpenAPI document and health. No authentication.',
          tags: ['service'],
          security: [],
          response: { 200: HtmlPage },
        },
      },
      async (_req, reply) => reply.headers(HEADERS).send(page),
    );
  };
}
