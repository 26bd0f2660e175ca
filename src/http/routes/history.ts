// GET /api/v1/document/{documentId}/history/json and /history/pdf: a document's history and the
// check of its chain, as JSON or as a PDF sealed by the service.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { getHistory } from '../../domain/history/get-history.js';
import { ErrorResponse, PdfFile } from '../../schemas/common.js';
import { historyPdf } from '../../domain/history/history-pdf.js';
import { DocumentHistory, HistoryParams, HistoryPdfQuery } from '../../schemas/report.js';

export function historyRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/api/v1/document/:documentId/history/json',
      {
        schema: {
          operationId: 'getDocumentHistory',
          summary: 'Document history: every state change, invitation, reminder, view, signature, rejection and edit',
          description:
            'Oldest first. Each entry carries the hash of the previous one; `chain` says whether every entry is as ' +
            'written (a changed, removed or added entry makes it invalid and names the first broken seq).',
          tags: ['documents'],
          security: [{ hmac: [] }],
          params: HistoryParams,
          response: { 200: DocumentHistory, '4xx': ErrorResponse },
        },
      },
      async (req) => getHistory(deps, { accountId: req.account!.id, ticket: req.params.documentId }),
    );

    app.get(
      '/api/v1/document/:documentId/history/pdf',
      {
        schema: {
          operationId: 'getDocumentHistoryPdf',
          summary: 'Document history as a PDF sealed by the service',
          description:
            "The same history as a readable PDF in the document's language, or in `lang` (every entry, the chain's " +
            'head hash and whether it verifies), sealed by the service with a PAdES B-T signature that pdfsig can check offline.',
          tags: ['documents'],
          security: [{ hmac: [] }],
          params: HistoryParams,
          querystring: HistoryPdfQuery,
          response: { 200: PdfFile, '4xx': ErrorResponse },
        },
      },
      async (req, reply) => {
        const file = await historyPdf(deps, {
          accountId: req.account!.id,
          ticket: req.params.documentId,
          language: req.query.lang,
        });
        return reply.type('application/pdf').header('content-disposition', `attachment; filename="${file.name}"`).send(file.pdf);
      },
    );
  };
}
