// The signer's side of identity verification (docs/api.md, "Identity verification"): send each
// image, then submit them for review. No HMAC: the personal link's token is the credential, as for
// the rest of the signing API.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { captureEvidence, submitEvidence } from '../../domain/identity/capture-evidence.js';
import { startProviderVerification } from '../../domain/identity/external-provider.js';
import { ErrorResponse } from '../../schemas/common.js';
import { EvidenceBody, EvidenceParams, IdentityState, ProviderSession, SubmitBody } from '../../schemas/identity.js';
import { TokenParams as Token } from '../../schemas/signing.js';

export function identityCaptureRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['signing'];
    app.post(
      '/sign/api/:token/identity/:kind',
      {
        schema: {
          operationId: 'sendIdentityEvidence',
          security: [],
          summary:
            'Identity verification: send one image (front, back of the identity document, or selfie); sent again, it replaces the last',
          tags,
          params: EvidenceParams,
          body: EvidenceBody,
          response: { 200: IdentityState, '4xx': ErrorResponse },
        },
      },
      async (req) => captureEvidence(deps, { ...req.params, image: req.body.image }),
    );

    app.post(
      '/sign/api/:token/identity/provider',
      {
        schema: {
          operationId: 'startProviderVerification',
          security: [],
          summary: "Identity verification with the operator's external provider: starts a session; answers where to send the signer",
          tags,
          params: Token,
          body: SubmitBody,
          response: { 200: ProviderSession, '4xx': ErrorResponse, '5xx': ErrorResponse },
        },
      },
      async (req) => startProviderVerification(deps, { token: req.params.token, ip: req.ip }),
    );

    app.post(
      '/sign/api/:token/identity/submit',
      {
        schema: {
          operationId: 'submitIdentityEvidence',
          security: [],
          summary: 'Identity verification: submit the three images for review',
          tags,
          params: Token,
          body: SubmitBody,
          response: { 200: IdentityState, '4xx': ErrorResponse },
        },
      },
      async (req) => submitEvidence(deps, { token: req.params.token, ip: req.ip }),
    );
  };
}
