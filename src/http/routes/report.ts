// GET /api/report/{ticket}: the signature report, for external verification of a document.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { signatureReport } from '../../domain/documents/signature-report.js';
import { ErrorResponse } from '../../schemas/common.js';
import { ReportParams, SignatureReport } from '../../schemas/report.js';

export function reportRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
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
      async (req) => {
        const { ticket } = req.params as { ticket: string };
        return signatureReport(deps, { accountId: req.account!.id, ticket });
      },
    );
  };
}
