// The signer page (web/, built by Vite into web/dist): GET /sign/{token} and /sign/set/{token} (a
// document set in one visit) answer its index.html and /assets/* its hashed scripts, styles and the
// pdf.js worker. The page itself talks to the signing APIs (routes/signing.ts, routes/set-signing.ts).
// Without a build, the page answers 503 saying how to make one.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ErrorResponse } from '../../schemas/common.js';
import { AssetParams, HtmlPage, PageTicketParams, PageTokenParams, SignerPageQuery } from '../../schemas/service.js';
import { errorBody } from '../errors.js';
import type { TitledPage } from '../../domain/signing/page-title.js';
import { escapeHtml } from '../../notify/email-templates.js';
import { allowFramingBy } from '../frame-guard.js';

/** Where `npm run build:web` writes the page. */
export const WEB_DIST = fileURLToPath(new URL('../../../web/dist', import.meta.url));

// The token is in the page's URL: no referrer may carry it elsewhere, and the page loads nothing
// but itself. pdf.js needs blob: workers in some browsers and data: images; no eval.
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
    "font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'self'",
};

/** The origin that may frame a link's page (domain/signing/embedding.ts), or null. */
export type EmbeddingOf = (link: { kind: 'document' | 'set'; token: string }, asked: string | undefined) => Promise<string | null>;

/** The page's <title> for what it opens (domain/signing/page-title.ts); without it, the built page's own. */
export type TitleOf = (page: TitledPage) => Promise<string>;

export function signerPageRoutes(opts: { distDir?: string; embedding?: EmbeddingOf; title?: TitleOf } = {}) {
  const dist = opts.distDir ?? WEB_DIST;
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    // serve:false with a root that always exists: the files are sent from web/dist by the route
    // below, so a build made after the server started is served without a restart.
    await app.register(fastifyStatic, { root: fileURLToPath(new URL('.', import.meta.url)), serve: false });

    app.get('/assets/*', { schema: { hide: true, params: AssetParams } }, async (req, reply) => {
      const file = req.params['*'];
      // Names carry a content hash: a file never changes under its name.
      return reply.sendFile(file, join(dist, 'assets'), { maxAge: '365d', immutable: true, dotfiles: 'deny' });
    });

    // /sign/set/{token}: the same page, signing every document of a set in one visit.
    const page = { hide: true, response: { 200: HtmlPage, 503: ErrorResponse } };
    // With `?embed_origin=`, a site the link's account listed may frame the page (embedding mode).
    const signer = { ...page, params: PageTokenParams, querystring: SignerPageQuery };
    app.get('/sign/set/:token', { schema: signer }, async (req, reply) => {
      const link = { kind: 'set', token: req.params.token } as const;
      await allowEmbedding(reply, link, req.query.embed_origin);
      return sendPage(reply, link);
    });
    app.get('/sign/:token', { schema: signer }, async (req, reply) => {
      const link = { kind: 'document', token: req.params.token } as const;
      await allowEmbedding(reply, link, req.query.embed_origin);
      return sendPage(reply, link);
    });
    // /document/{ticket} (document_url): the same page, where a signer chooses their box and asks for their link.
    app.get('/document/:ticket', { schema: { ...page, params: PageTicketParams } }, async (req, reply) =>
      sendPage(reply, { kind: 'ticket', ticket: req.params.ticket }),
    );

    async function allowEmbedding(reply: FastifyReply, link: { kind: 'document' | 'set'; token: string }, asked: string | undefined) {
      const origin = asked && opts.embedding ? await opts.embedding(link, asked) : null;
      if (origin) {
        allowFramingBy(reply, origin);
      }
    }

    async function sendPage(reply: FastifyReply, titled: TitledPage) {
      const index = join(dist, 'index.html');
      if (!existsSync(index)) {
        return reply
          .code(503)
          .header('cache-control', 'no-store')
          .send(
            errorBody(
              'SERVICE_UNAVAILABLE',
              'the signer page is not built: run `npm run build:web` (npm start and npm test build it when missing)',
            ),
          );
      }
      const html = await readFile(index, 'utf8');
      const title = opts.title ? await opts.title(titled) : undefined;
      return reply
        .headers(PAGE_HEADERS)
        .send(title === undefined ? html : html.replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(title)}</title>`));
    }
  };
}
