// GET /verify and POST /verify: the public page where anyone drops a PDF and sees whether its
// signatures are valid, who signed, when, by which authority and whether the document changed
// after (domain/documents/verify-public-file.ts). No authentication; nothing is stored. Each
// address may verify a few files a minute, since each one is a full read of the file in the PDF
// jail; files are limited to the document size limit.
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { verifyPublicFile } from '../../domain/documents/verify-public-file.js';
import { AppError } from '../../domain/errors.js';
import { ErrorResponse } from '../../schemas/common.js';
import { ReportUpload } from '../../schemas/report.js';
import { createRateLimiter } from '../rate-limit.js';
import { type FileProblem, renderVerifyForm, renderVerifyResult } from '../verify-file-html.js';
import { pickLocale } from '../verify-html.js';

/** Files one address may verify a minute on the public page. */
export const PUBLIC_VERIFICATIONS_PER_MINUTE = 10;

const HEADERS = {
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
  'x-frame-options': 'DENY',
  vary: 'accept-language',
};

const PROBLEMS: Record<string, [number, FileProblem]> = {
  PDF_INVALID: [422, 'invalid'],
  PDF_ENCRYPTED: [422, 'invalid'],
  PDF_TOO_COMPLEX: [422, 'complex'],
  DOCUMENT_TOO_LARGE: [413, 'large'],
  RATE_LIMITED: [429, 'busy'],
  INVALID_INPUT: [400, 'missing'],
};

export function verifyFileRoutes(deps: Deps) {
  const maxMb = Math.round(deps.config.limits.documentBytes / 1e6);

  return async function routes(fastify: FastifyInstance) {
    const rateLimit = createRateLimiter(fastify.requestCounts, { scope: 'verify-file', perWindow: PUBLIC_VERIFICATIONS_PER_MINUTE });
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    await app.register(multipart, {
      // A few fields are read (and refused by name, fileOf) rather than none: a limit of 0 stops the
      // reader at the first field before its name is known.
      limits: { fileSize: deps.config.limits.documentBytes, files: 2, fields: 4, fieldSize: 1024 },
      throwFileSizeLimit: true,
    });

    app.get(
      '/verify',
      {
        schema: {
          operationId: 'verifyFileForm',
          security: [],
          summary: 'Public page to verify any signed PDF (the form)',
          description: 'No authentication. HTML in Spanish or English after Accept-Language; the form posts the file to POST /verify.',
          tags: ['verification'],
          response: {
            200: { description: 'the form (HTML)', content: { 'text/html': { schema: { type: 'string' } } } },
            '4xx': {
              description: 'a request the server does not take (JSON error)',
              content: { 'application/json': { schema: ErrorResponse } },
            },
          },
        },
      },
      async (req, reply) => reply.headers(HEADERS).send(renderVerifyForm(pickLocale(req.headers['accept-language']), maxMb)),
    );

    app.post(
      '/verify',
      {
        schema: {
          operationId: 'verifyFile',
          security: [],
          summary: 'Public verification of an uploaded PDF: each signature, who signed, when, and whether the document changed after',
          description:
            `No authentication; multipart/form-data with a part \`file\`. Answers an HTML page; nothing is stored. At most ` +
            `${PUBLIC_VERIFICATIONS_PER_MINUTE} files a minute per address (then 429), files up to the document size limit (413).`,
          tags: ['verification'],
          consumes: ['multipart/form-data'],
          body: ReportUpload,
          response: {
            200: { description: 'the verdict (HTML)', content: { 'text/html': { schema: { type: 'string' } } } },
            '4xx': {
              description: 'the form again, saying what went wrong (HTML)',
              content: { 'text/html': { schema: { type: 'string' } } },
            },
          },
        },
      },
      async (req, reply) => {
        const locale = pickLocale(req.headers['accept-language']);
        try {
          const retryAfter = rateLimit(req.ip);
          if (retryAfter > 0) {
            reply.header('retry-after', String(retryAfter));
            throw new AppError('RATE_LIMITED', `retry in ${retryAfter} s`);
          }
          const bytes = await fileOf(req);
          return reply.headers(HEADERS).send(renderVerifyResult(await verifyPublicFile(deps, { bytes }), locale));
        } catch (err) {
          return problem(reply, err, locale, maxMb);
        }
      },
    );
  };
}

/** Limits of the multipart reader that show a request is not the form's one file (else a 413 of its own). */
const NOT_THE_FORM = new Set(['FST_FIELDS_LIMIT', 'FST_FILES_LIMIT', 'FST_PARTS_LIMIT']);

/**
 * The form sends one part, the file `file`; any other part is named back (400) rather than ignored
 * or left to the multipart reader, whose limits would answer as a failure of the service.
 */
async function fileOf(req: FastifyRequest): Promise<Buffer> {
  if (!req.isMultipart()) {
    throw new AppError('INVALID_INPUT', 'expected multipart/form-data with a part named file');
  }
  let file: Buffer | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file' && part.fieldname === 'file' && !file) {
        file = await part.toBuffer();
        continue;
      }
      if (part.type === 'file') {
        part.file.resume(); // drained, so the answer is not held up by the unread upload
      }
      const what = part.type === 'file' ? (part.fieldname === 'file' ? 'a second file' : 'a file') : 'a field';
      throw new AppError('INVALID_INPUT', `${part.fieldname}: unexpected (${what}); the form sends one part, the PDF named file`, {
        field: part.fieldname,
        unexpected: true,
      });
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new AppError('DOCUMENT_TOO_LARGE', 'the file is too large');
    }
    if (code && NOT_THE_FORM.has(code)) {
      throw new AppError('INVALID_INPUT', 'the form sends one part, the PDF named file; this request has more', {
        unexpected: true,
      });
    }
    throw err;
  }
  if (!file) {
    throw new AppError('INVALID_INPUT', 'file: required', { field: 'file' });
  }
  return file;
}

function problem(reply: FastifyReply, err: unknown, locale: 'es' | 'en', maxMb: number) {
  const known = err instanceof AppError ? PROBLEMS[err.code] : undefined;
  if (!known) {
    reply.log.warn({ err }, 'public verification failed');
  }
  // A part the form does not send is named on the page, so that whoever built the request sees which.
  const details = err instanceof AppError ? (err.details as { field?: string; unexpected?: boolean } | undefined) : undefined;
  const [status, kind] = details?.unexpected ? [400, 'unexpected' as const] : (known ?? [503, 'failed' as const]);
  return reply
    .code(status)
    .headers(HEADERS)
    .send(renderVerifyForm(locale, maxMb, kind, details?.unexpected ? details.field : undefined));
}
