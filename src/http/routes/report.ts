// GET /api/report/{ticket}: the signature report, for external verification of a document; and
// POST /api/report: the same report of any PDF the client uploads (multipart, signed through
// Content-SHA256), nothing stored.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { signatureReport } from '../../domain/documents/signature-report.js';
import { verifyUploadedPdf } from '../../domain/documents/verify-uploaded-pdf.js';
import { AppError } from '../../domain/errors.js';
import { readSignedUpload } from '../multipart.js';
import { ErrorResponse } from '../../schemas/common.js';
import { ReportParams, ReportUpload, SignatureReport } from '../../schemas/report.js';

export function reportRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/api/report/:ticket',
      {
        schema: {
          operationId: 'getDocumentReport',
          summary:
            'Signature report: each signature with position, certificate chain, revocation status, time-stamp authority and validity',
          description:
            'Checked from the current original (every signature applied so far). Boxes are in PDF points from the ' +
            "top-left corner of the page's CropBox; a deleted document answers 409 DOCUMENT_DELETED.",
          tags: ['documents'],
          security: [{ hmac: [] }],
          params: ReportParams,
          response: { 200: SignatureReport, '4xx': ErrorResponse },
        },
      },
      async (req) => signatureReport(deps, { accountId: req.account!.id, ticket: req.params.ticket }),
    );
    app.post(
      '/api/report',
      {
        schema: {
          operationId: 'verifyPdfReport',
          summary: 'Signature report of an uploaded PDF: every signature checked, what changed after it, PAdES level, attacks recognized',
          description:
            'multipart/form-data with a part `file` (the PDF). The signature is over the `Content-SHA256` header: Base64 of the ' +
            'SHA-256 of the file. Nothing is stored. The answer has the shape of GET /api/report/{ticket}; signatures this ' +
            "account's signers did not make have `box` -1. A file that cannot be read is 422 PDF_INVALID, one beyond the " +
            'reading limits 422 PDF_TOO_COMPLEX.',
          tags: ['documents'],
          security: [{ hmac: [] }],
          consumes: ['multipart/form-data'],
          body: ReportUpload,
          response: { 200: SignatureReport, '4xx': ErrorResponse },
        },
      },
      async (req) => {
        const upload = await readSignedUpload(req);
        // The upload is the file alone: a field is named back rather than silently ignored, since
        // a client sending one expects it to change the report, and nothing does.
        const extra = Object.keys(upload.fields)[0];
        if (extra !== undefined) {
          throw new AppError('INVALID_INPUT', `${extra}: unexpected field; the upload is one part, the PDF named file`, { field: extra });
        }
        return verifyUploadedPdf(deps, { bytes: upload.file });
      },
    );
  };
}
