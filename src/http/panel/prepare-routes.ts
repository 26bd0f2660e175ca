// The panel sends a document it prepared: the body of POST /developers/json, checked by the same
// schema (CreateDocumentBody, through the one validator compiler) and created by the same use case
// with the session's account, so every rule, answer and error is the API's: an error names the
// field as the API names it (`stickers[1].data`, `workflow.expiration_date`), which the page shows
// at that field. The CSRF check is the hook's in index.ts.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { createDocument } from '../../domain/documents/create-document.js';
import { ErrorResponse } from '../../schemas/common.js';
import { CreateDocumentBody, CreatedDocument } from '../../schemas/documents.js';
import { sessionOf } from './session-of.js';

export function panelPrepareRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const create = { hide: true, body: CreateDocumentBody, response: { 200: CreatedDocument, '4xx': ErrorResponse } };
    app.post('/panel/api/documents', { schema: create }, async (req) =>
      createDocument(deps, { accountId: sessionOf(req).account_id, payload: req.body, ip: req.ip }),
    );
  };
}
