// Endorsements of completed documents (docs/api.md "Endorsements"), HMAC-authenticated.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { createEndorsement } from '../../domain/endorsements/create-endorsement.js';
import { listEndorsements } from '../../domain/endorsements/list-endorsements.js';
import { ErrorResponse } from '../../schemas/common.js';
import { CreatedEndorsement, EndorseBody, EndorseParams, EndorsementChain } from '../../schemas/endorsements.js';

export function endorsementRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    const tags = ['endorsements'];
    // The spec's clients spell it both ways; one handler.
    for (const [path, operationId] of [
      ['/api/document/:ticket/endorse', 'endorseDocument'],
      ['/api/document/:ticket/endorsment', 'endorseDocumentAlias'],
    ] as const) {
      app.post(
        path,
        {
          schema: {
            operationId,
            summary:
              operationId === 'endorseDocument'
                ? "Endorse a completed document: the endorsement waits for the endorser's signature through the returned link"
                : 'The same as /endorse (the spelling some clients use)',
            tags,
            security: [{ hmac: [] }],
            params: EndorseParams,
            body: EndorseBody,
            response: { 200: CreatedEndorsement, '4xx': ErrorResponse },
          },
        },
        async (req) =>
          createEndorsement(deps, { accountId: req.account!.id, ticket: (req.params as { ticket: string }).ticket, body: req.body }),
      );
    }

    // The path has the download route's shape (/api/document/{a}/{b}); a static last segment wins.
    app.get(
      '/api/document/:ticket/endorsements',
      {
        schema: {
          operationId: 'listEndorsements',
          summary: "A document's endorsements in order (pending, signed or declined) and its current holder",
          tags,
          security: [{ hmac: [] }],
          params: EndorseParams,
          response: { 200: EndorsementChain, '4xx': ErrorResponse },
        },
      },
      async (req) => listEndorsements(deps, { accountId: req.account!.id, ticket: (req.params as { ticket: string }).ticket }),
    );
  };
}
