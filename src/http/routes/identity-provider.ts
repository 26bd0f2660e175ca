// The external identity-verification provider's result callback (docs/api.md, "External
// providers"): no HMAC of an account; the provider signs the raw body with the shared secret,
// checked before anything is read.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { receiveProviderResult } from '../../domain/identity/external-provider.js';
import { ErrorResponse } from '../../schemas/common.js';
import { ProviderResultAnswer, SignedProviderResult } from '../../schemas/identity.js';

export function identityProviderRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    // The signature covers the bytes as sent: keep them; they are parsed after the check.
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
      req.rawBody = body as Buffer;
      done(null, undefined);
    });
    app.post(
      '/identity/provider/callback',
      {
        schema: {
          operationId: 'identityProviderResult',
          security: [],
          summary: "The external verification provider's signed result (X-Sello-Signature)",
          tags: ['identity'],
          body: SignedProviderResult,
          response: { 200: ProviderResultAnswer, '4xx': ErrorResponse },
        },
      },
      async (req) =>
        receiveProviderResult(deps, { rawBody: req.rawBody, signature: req.headers['x-sello-signature'] as string | undefined }),
    );
  };
}
