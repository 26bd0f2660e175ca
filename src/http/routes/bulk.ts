// Bulk send (decisions.md "Bulk send"): start a run of many documents from one template or PDF, and
// read its state and the outcome of each row.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { createBulk } from '../../domain/bulk/create-bulk.js';
import { getBulk } from '../../domain/bulk/get-bulk.js';
import { ErrorResponse } from '../../schemas/common.js';
import { BulkParams, BulkQuery, BulkRun, BulkStarted, CreateBulkBody, CreateBulkHeaders } from '../../schemas/bulk.js';

export function bulkRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/api/bulk',
      {
        schema: {
          operationId: 'createBulk',
          summary: 'Start a bulk run: one document per row, from one template or PDF with its boxes',
          description:
            'Each row becomes one document through the rules of POST /developers/json, in the background; ' +
            'GET /api/bulk/{bulk_id} follows the run, and the bulk_completed event tells its end.',
          tags: ['bulk'],
          security: [{ hmac: [] }],
          headers: CreateBulkHeaders,
          body: CreateBulkBody,
          response: { 200: BulkStarted, '4xx': ErrorResponse },
        },
      },
      async (req) => createBulk(deps, { accountId: req.account!.id, idempotencyKey: req.headers['idempotency-key'], body: req.body }),
    );

    app.get(
      '/api/bulk/:bulk_id',
      {
        schema: {
          operationId: 'getBulk',
          summary: "A bulk run's state and counts, and its rows' outcomes (document_ticket or error) a page at a time",
          tags: ['bulk'],
          security: [{ hmac: [] }],
          params: BulkParams,
          querystring: BulkQuery,
          response: { 200: BulkRun, '4xx': ErrorResponse },
        },
      },
      async (req) => getBulk(deps, { accountId: req.account!.id, bulkId: req.params.bulk_id, ...req.query }),
    );
  };
}
