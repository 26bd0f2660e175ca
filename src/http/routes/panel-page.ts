// The account panel's page (web/panel.html, built by Vite into web/dist beside the signer page and
// sharing its /assets/): GET /panel and every path under it but /panel/api/, which the page routes
// itself (/panel/sign-in, /panel/documents/{ticket}, …). Same headers as the signer page: the page
// loads nothing but itself.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorResponse } from '../../schemas/common.js';
import { AssetParams, HtmlPage } from '../../schemas/service.js';
import { errorBody } from '../errors.js';
import { PAGE_HEADERS, WEB_DIST } from './signer-page.js';

export function panelPageRoutes(opts: { distDir?: string } = {}) {
  const dist = opts.distDir ?? WEB_DIST;
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const send = async (req: FastifyRequest, reply: FastifyReply) => {
      if (req.url.startsWith('/panel/api/')) {
        return reply.code(404).send(errorBody('ROUTE_NOT_FOUND', `no route ${req.method} ${req.url.split('?')[0].slice(0, 200)}`));
      }
      const index = join(dist, 'panel.html');
      if (!existsSync(index)) {
        return reply
          .code(503)
          .header('cache-control', 'no-store')
          .send(
            errorBody(
              'SERVICE_UNAVAILABLE',
              'the panel is not built: run `npm run build:web` (npm start and npm test build it when missing)',
            ),
          );
      }
      return reply.headers(PAGE_HEADERS).send(await readFile(index));
    };
    // The path under /panel is the page's own route: never read here but for /panel/api/.
    const schema = { hide: true, response: { 200: HtmlPage, '4xx': ErrorResponse, 503: ErrorResponse } };
    app.get('/panel', { schema }, send);
    app.get('/panel/*', { schema: { ...schema, params: AssetParams } }, send);
  };
}
