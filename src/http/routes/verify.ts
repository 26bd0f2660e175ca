// GET /verify/{ticket}: the public verification page the QR code links to (no authentication: the
// random ticket is the key), and GET /verify/{ticket}.json, the same data for programs. Neither
// serves the file nor anything that leads to it.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { verifyDocument } from '../../domain/documents/verify-document.js';
import { verifyPageBrand } from '../../domain/documents/verify-page-brand.js';
import { AppError, type ErrorCode } from '../../domain/errors.js';
import { errorBody, statusOf } from '../errors.js';
import { createRateLimiter } from '../rate-limit.js';
import { ErrorResponse } from '../../schemas/common.js';
import { VerifyPage, VerifyParams } from '../../schemas/service.js';
import { pickLocale, renderVerifyPage, renderVerifyProblem, type VerifyProblem } from '../verify-html.js';

// The page loads nothing (no script, image or font) and may not be framed; it is personal enough
// that no cache or search engine should keep it.
const COMMON_HEADERS = {
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};
const HTML_HEADERS = {
  ...COMMON_HEADERS,
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  'x-frame-options': 'DENY',
  vary: 'accept-language',
};
const JSON_HEADERS = { ...COMMON_HEADERS, 'content-type': 'application/json; charset=utf-8' };

const PROBLEMS: Partial<Record<ErrorCode, VerifyProblem>> = {
  DOCUMENT_NOT_FOUND: 'not-found',
  DOCUMENT_DELETED: 'gone',
  RATE_LIMITED: 'busy',
};

export function verifyRoutes(deps: Deps) {
  // Each check reads and verifies the whole file: bounded per document, as the API is per account.
  return async function routes(fastify: FastifyInstance) {
    const rateLimit = createRateLimiter(fastify.requestCounts, { scope: 'verify', perWindow: deps.config.limits.requestsPerMinute });
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/verify/:ticket',
      {
        schema: {
          operationId: 'verifyDocument',
          security: [],
          summary: 'Public verification page of a document (the target of its QR code)',
          description:
            'No authentication. HTML for people (Spanish or English after Accept-Language); append `.json` to the ticket ' +
            '(`/verify/{ticket}.json`) for the same data as JSON. Shows the name, status, page count, the SHA-256 of the ' +
            'current PDF and each signature as the signature report checks it, with email addresses and the names of ' +
            'signers who have not signed yet masked; never the file. 404 for an unknown ticket, 409 for a deleted document.',
          tags: ['verification'],
          params: VerifyParams,
          response: { 200: VerifyPage, '4xx': ErrorResponse },
        },
      },
      async (req, reply) => {
        const raw = req.params.ticket;
        const json = raw.endsWith('.json');
        const ticket = json ? raw.slice(0, -'.json'.length) : raw;
        const locale = pickLocale(req.headers['accept-language']);
        try {
          const retryAfter = rateLimit(ticket);
          if (retryAfter > 0) {
            reply.header('retry-after', String(retryAfter));
            throw new AppError('RATE_LIMITED', `this document was looked up too often; retry in ${retryAfter} s`);
          }
          const result = await verifyDocument(deps, { ticket });
          if (json) {
            return reply.headers(JSON_HEADERS).send(result);
          }
          const brand = await verifyPageBrand(deps, ticket);
          return reply.headers(HTML_HEADERS).send(renderVerifyPage(result, locale, `/verify/${encodeURIComponent(ticket)}.json`, brand));
        } catch (err) {
          if (!(err instanceof AppError)) {
            throw err;
          }
          return problem(req, reply, err, json, locale);
        }
      },
    );
  };
}

function problem(req: FastifyRequest, reply: FastifyReply, err: AppError, json: boolean, locale: 'es' | 'en') {
  const status = statusOf(err.code);
  if (status >= 500) {
    req.log.warn({ code: err.code, cause: err.cause }, err.message);
  }
  reply.code(status);
  if (json) {
    return reply.headers(JSON_HEADERS).send(errorBody(err.code, err.message));
  }
  return reply.headers(HTML_HEADERS).send(renderVerifyProblem(PROBLEMS[err.code] ?? 'failed', locale));
}
