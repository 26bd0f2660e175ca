// Endorsements of completed documents (docs/api.md "Endorsements"), HMAC-authenticated.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { createEndorsement } from '../../domain/endorsements/create-endorsement.js';
import { listEndorsements } from '../../domain/endorsements/list-endorsements.js';
import { withdrawEndorsement } from '../../domain/endorsements/withdraw-endorsement.js';
import { ErrorResponse } from '../../schemas/common.js';
import {
  CreatedEndorsement,
  EndorseBody,
  EndorseParams,
  EndorsementChain,
  EndorsementEntry,
  WithdrawEndorsementBody,
  WithdrawEndorsementParams,
} from '../../schemas/endorsements.js';

export function endorsementRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
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
        async (req) => createEndorsement(deps, { accountId: req.account!.id, ticket: req.params.ticket, body: req.body }),
      );
    }

    // The path has the download route's shape (/api/document/{a}/{b}); a static last segment wins.
    app.get(
      '/api/document/:ticket/endorsements',
      {
        schema: {
          operationId: 'listEndorsements',
          summary: "A document's endorsements in order (pending, signed, declined or withdrawn) and its current holder",
          tags,
          security: [{ hmac: [] }],
          params: EndorseParams,
          response: { 200: EndorsementChain, '4xx': ErrorResponse },
        },
      },
      async (req) => listEndorsements(deps, { accountId: req.account!.id, ticket: req.params.ticket }),
    );

    app.delete(
      '/api/document/:ticket/endorsements/:endorsement_id',
      {
        schema: {
          operationId: 'withdrawEndorsement',
          summary: "Withdraw a pending endorsement: the endorser's link stops working and a new endorsement may be asked for",
          description:
            'Optional JSON body {"reason"} (1 to 500 characters). The answer is the endorsement as the listing shows it, withdrawn. ' +
            '404 ENDORSEMENT_NOT_FOUND for an id the document does not have; 409 ENDORSEMENT_NOT_PENDING (details.status) for one ' +
            'signed, declined or withdrawn already.',
          tags,
          security: [{ hmac: [] }],
          params: WithdrawEndorsementParams,
          body: WithdrawEndorsementBody,
          response: { 200: EndorsementEntry, '4xx': ErrorResponse },
        },
      },
      async (req) =>
        withdrawEndorsement(deps, {
          accountId: req.account!.id,
          ticket: req.params.ticket,
          endorsementId: req.params.endorsement_id,
          body: req.body,
        }),
    );
  };
}
