// The panel's bulk send: the page prepares a run from the draft and a CSV file, and these routes
// start it and follow it through the use cases of POST /api/bulk and GET /api/bulk/{bulk_id}, with
// the session's account. The page generates the Idempotency-Key once per send, so a double click or
// a retry after a lost answer finds the run already made instead of making a second one.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { createBulk } from '../../domain/bulk/create-bulk.js';
import { getBulk } from '../../domain/bulk/get-bulk.js';
import { listBulk } from '../../domain/bulk/list-bulk.js';
import { ErrorResponse } from '../../schemas/common.js';
import {
  BulkListQuery,
  BulkParams,
  BulkQuery,
  BulkRun,
  BulkRunList,
  BulkStarted,
  CreateBulkBody,
  CreateBulkHeaders,
} from '../../schemas/bulk.js';
import { sessionOf } from './session-of.js';

export function panelBulkRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const start = {
      hide: true,
      headers: CreateBulkHeaders,
      body: CreateBulkBody,
      response: { 200: BulkStarted, '4xx': ErrorResponse },
    };
    app.post('/panel/api/bulk', { schema: start }, async (req) =>
      createBulk(deps, { accountId: sessionOf(req).account_id, idempotencyKey: req.headers['idempotency-key'], body: req.body }),
    );

    const list = { hide: true, querystring: BulkListQuery, response: { 200: BulkRunList, '4xx': ErrorResponse } };
    app.get('/panel/api/bulk', { schema: list }, async (req) => listBulk(deps, { accountId: sessionOf(req).account_id, ...req.query }));

    const one = { hide: true, params: BulkParams, querystring: BulkQuery, response: { 200: BulkRun, '4xx': ErrorResponse } };
    app.get('/panel/api/bulk/:bulk_id', { schema: one }, async (req) =>
      getBulk(deps, { accountId: sessionOf(req).account_id, bulkId: req.params.bulk_id, ...req.query }),
    );
  };
}
