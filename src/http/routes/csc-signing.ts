// Remote signing through a Cloud Signature Consortium API v2 provider (authority CSC): the signer
// page asks where to send the signer, the provider's authorization page sends them back here with a
// code, and the signature is made before the signer is sent back to their page (docs/api.md,
// "Remote signing (CSC)"). No HMAC: the personal link's token, and then the state, are the credentials.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { completeCscSignature } from '../../domain/signing/csc/complete-csc-signature.js';
import { startCscSignature } from '../../domain/signing/csc/start-csc-signature.js';
import { ErrorResponse } from '../../schemas/common.js';
import { CscAuthorization, CscAuthorizeBody, CscCallbackQuery } from '../../schemas/csc-signing.js';
import { TokenParams as Token } from '../../schemas/signing.js';

export function cscSigningRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/sign/api/:token/csc/authorize',
      {
        schema: {
          operationId: 'authorizeCscSignature',
          security: [],
          summary: 'CSC authority: where to send the signer to authorize the signature at their trust service provider',
          tags: ['signing'],
          params: Token,
          body: CscAuthorizeBody,
          response: { 200: CscAuthorization, '4xx': ErrorResponse },
        },
      },
      async (req) =>
        startCscSignature(deps, {
          token: req.params.token,
          provider: req.body.provider,
          language: req.body.language,
          fieldValues: req.body.field_values,
        }),
    );

    // Where the provider sends the signer back (the OAuth 2.0 redirect URI); a browser's page, not an API.
    app.get(
      '/sign/csc/callback',
      { schema: { hide: true, querystring: CscCallbackQuery, response: { '4xx': ErrorResponse, '5xx': ErrorResponse } } },
      async (req, reply) => {
        const done = await completeCscSignature(deps, { ...req.query, ip: req.ip });
        return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(done.redirect, 303);
      },
    );
  };
}
