// GET /api/v1/document/{documentId}/history/json: a document's history and the check of its chain.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { getHistory } from '../../domain/history/get-history.js';
import { ErrorResponse } from '../../schemas/common.js';
import { DocumentHistory, HistoryParams } from '../../schemas/report.js';

export function historyRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
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
      async (req) => getHistory(deps, { accountId: req.account!.id, ticket: (req.params as { documentId: string }).documentId }),
    );
  };
}
