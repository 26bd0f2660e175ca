// Document sets: create and read. Closing and the set's flow belong to the workflow use cases.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../domain/deps.js';
import { createDocumentSet } from '../../domain/sets/create-set.js';
import { getDocumentSet } from '../../domain/sets/get-set.js';
import { DocumentSetResponse, ErrorResponse } from '../schemas.js';
import { asObject } from './documents.js';

export function setRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    app.post(
      '/api/documentset',
      {
        schema: {
          summary: 'Create an empty, OPEN document set',
          tags: ['sets'],
          security: [{ hmac: [] }],
          body: Type.Optional(
            Type.Object(
              { name: Type.Optional(Type.String({ maxLength: 200 })), metadata: Type.Optional(Type.Object({}, { additionalProperties: true })) },
              { additionalProperties: true },
            ),
          ),
          response: { 200: Type.Object({ uuid: Type.String(), status: Type.String(), name: Type.String() }), '4xx': ErrorResponse },
        },
        // The body is optional and checked by the use case, whose messages name the field.
        validatorCompiler: () => () => true,
      },
      async (req) => {
        const b = asObject(req.body);
        return createDocumentSet(deps, { accountId: req.account!.id, name: b.name, metadata: b.metadata });
      },
    );

    app.get(
      '/api/documentset/:uuid',
      {
        schema: {
          summary: 'A document set with its documents and their signers',
          tags: ['sets'],
          security: [{ hmac: [] }],
          params: Type.Object({ uuid: Type.String() }),
          response: { 200: DocumentSetResponse, '4xx': ErrorResponse },
        },
      },
      async (req) => getDocumentSet(deps, { accountId: req.account!.id, uuid: (req.params as { uuid: string }).uuid }),
    );
  };
}
