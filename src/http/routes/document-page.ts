// The API behind the page `document_url` opens (GET /document/{ticket}, served by signer-page.ts):
// the document's pages with every box, and a personal link sent to the signer who proves their
// address. No HMAC and no PDF: the ticket is also printed in the verification QR code, so it opens
// nothing a stranger should not see (get-document-page.ts, send-personal-link.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { AppError } from '../../domain/errors.js';
import { getDocumentPage } from '../../domain/signing/get-document-page.js';
import { LINK_REQUESTS_PER_HOUR, parseLinkRequest, sendPersonalLink } from '../../domain/signing/send-personal-link.js';
import { createRateLimiter } from '../rate-limit.js';
import { ErrorResponse } from '../../schemas/common.js';
import { DocumentPage, LinkAnswer, LinkRequestBody, PageTicketParams as Ticket } from '../../schemas/signing.js';

export function documentPageRoutes(deps: Deps) {
  // Each read parses the whole file for its page sizes, and the ticket is public (the QR code):
  // bounded per document, as the API is per account and /verify per document.
  return async function routes(fastify: FastifyInstance) {
    const rateLimit = createRateLimiter(fastify.requestCounts, { scope: 'page', perWindow: deps.config.limits.requestsPerMinute });
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['signing'];

    app.get(
      '/sign/api/document/:ticket',
      {
        schema: {
          operationId: 'getDocumentPage',
          security: [],
          summary: 'The page of document_url: the document, its pages and every box with its signer, masked',
          description:
            'No authentication, and no PDF: the ticket is also printed in the verification QR code. 404 for an unknown ticket or ' +
            'a deleted document; 429 beyond the per-minute limit of reads of one document.',
          tags,
          params: Ticket,
          response: { 200: DocumentPage, '4xx': ErrorResponse },
        },
      },
      async (req, reply) => {
        const retryAfter = rateLimit(req.params.ticket);
        if (retryAfter > 0) {
          reply.header('retry-after', String(retryAfter));
          throw new AppError('RATE_LIMITED', `this document was looked up too often; retry in ${retryAfter} s`);
        }
        const page = await getDocumentPage(deps, req.params.ticket);
        return reply.header('cache-control', 'no-store').send(page);
      },
    );

    app.post(
      '/sign/api/document/:ticket/link',
      {
        schema: {
          operationId: 'sendSignerLink',
          security: [],
          summary: "Send a signer's personal link to the address or phone given, when it is that box's signer's",
          description:
            'By email for EMAIL_LINK and EMAIL boxes, by SMS or WhatsApp for SMS and WHATSAPP boxes. The answer is the same whether or not the address matched. At most ' +
            `${LINK_REQUESTS_PER_HOUR} requests for one signer an hour, whether or not the address matched (429 RATE_LIMITED with Retry-After); SAT ` +
            'boxes: 409 AUTHORITY_NOT_AVAILABLE; a document that can no longer be signed: 409 DOCUMENT_NOT_SIGNABLE.',
          tags,
          params: Ticket,
          body: LinkRequestBody,
          response: { 200: LinkAnswer, '4xx': ErrorResponse },
        },
      },
      async (req, reply) => {
        try {
          return await sendPersonalLink(deps, { ticket: req.params.ticket, request: parseLinkRequest(req.body), ip: req.ip });
        } catch (err) {
          const retryAfter = (err instanceof AppError && err.code === 'RATE_LIMITED' ? err.details : undefined) as
            | { retry_after?: number }
            | undefined;
          if (retryAfter?.retry_after) {
            reply.header('retry-after', String(retryAfter.retry_after));
          }
          throw err;
        }
      },
    );
  };
}
