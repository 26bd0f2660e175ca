// NOM-151 stamps and time stamps of a client's data: stamp a hash, validate a stamp, stamp a PDF
// (multipart, signed through Content-SHA256), validate the stamps of a PDF. A document's own stamps
// are under /api/document (routes/documents.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { stampHash } from '../../domain/nom151/stamp-hash.js';
import { stampPdf } from '../../domain/nom151/stamp-pdf.js';
import { validatePdfStamps } from '../../domain/nom151/validate-pdf-stamps.js';
import { validateTimestamp } from '../../domain/nom151/validate-timestamp.js';
import { ErrorResponse } from '../../schemas/common.js';
import {
  PdfStampsValidation,
  PdfUpload,
  StampAnswer,
  StampHashBody,
  StampedPdf,
  TimestampValidation,
  ValidateTimestampBody,
} from '../../schemas/stamps.js';
import { readSignedUpload } from '../multipart.js';

const PROVIDER_DOWN =
  '503 `STAMP_PROVIDER_UNAVAILABLE` when the provider does not answer, `STAMP_REFUSED` when its answer fails a check; nothing is stored.';

export function stampRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/api/timestamp',
      {
        schema: {
          operationId: 'stampHash',
          summary: 'Issue a NOM-151 stamp (RFC 3161 time stamp) over a SHA-256',
          description: `The token is checked before it is answered. ${PROVIDER_DOWN}`,
          tags: ['nom151'],
          security: [{ hmac: [] }],
          body: StampHashBody,
          response: { 200: StampAnswer, '4xx': ErrorResponse, '5xx': ErrorResponse },
        },
      },
      async (req) => stampHash(deps, { accountId: req.account!.id, body: req.body }),
    );

    app.post(
      '/api/timestamp/validate',
      {
        schema: {
          operationId: 'validateTimestamp',
          summary: 'Check a time stamp against the data it should cover, and say why it is not valid',
          tags: ['nom151'],
          security: [{ hmac: [] }],
          body: ValidateTimestampBody,
          response: { 200: TimestampValidation, '4xx': ErrorResponse },
        },
      },
      async (req) => validateTimestamp(deps, { body: req.body }),
    );

    app.post(
      '/api/nom151/stamp',
      {
        schema: {
          operationId: 'stampPdf',
          summary: 'Apply a NOM-151 stamp to a PDF as a document time stamp revision (earlier signatures stay valid)',
          description:
            'multipart/form-data with a part `file` (the PDF); the signature is over the `Content-SHA256` header. ' +
            `Answers JSON with the stamped PDF in Base64 and the stamp. A PDF that cannot be read or extended is 422. ${PROVIDER_DOWN}`,
          tags: ['nom151'],
          security: [{ hmac: [] }],
          consumes: ['multipart/form-data'],
          body: PdfUpload,
          response: { 200: StampedPdf, '4xx': ErrorResponse, '5xx': ErrorResponse },
        },
      },
      async (req) => {
        const upload = await readSignedUpload(req);
        return stampPdf(deps, { accountId: req.account!.id, bytes: upload.file });
      },
    );

    app.post(
      '/api/nom151/validate',
      {
        schema: {
          operationId: 'validatePdfStamps',
          summary: 'Check the stamps (document time stamps) of a PDF and what changed after each',
          description: 'multipart/form-data with a part `file` (the PDF); the signature is over the `Content-SHA256` header.',
          tags: ['nom151'],
          security: [{ hmac: [] }],
          consumes: ['multipart/form-data'],
          body: PdfUpload,
          response: { 200: PdfStampsValidation, '4xx': ErrorResponse },
        },
      },
      async (req) => {
        const upload = await readSignedUpload(req);
        return validatePdfStamps(deps, { bytes: upload.file });
      },
    );
  };
}
