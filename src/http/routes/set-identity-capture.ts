// Identity verification on a set link (docs/api.md, "Identity verification", "In a document set"):
// the same three calls as on a document link, once for all the signer's documents of the set. No
// HMAC: the set link's token is the credential.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { captureSetEvidence, startSetProviderVerification, submitSetEvidence } from '../../domain/sets/set-identity.js';
import { ErrorResponse } from '../../schemas/common.js';
import { EvidenceBody, IdentityState, ProviderSession, SetEvidenceParams, SubmitBody } from '../../schemas/identity.js';
import { SetTokenParams as Token } from '../../schemas/signing.js';

export function setIdentityCaptureRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['signing'];
    app.post(
      '/sign/api/set/:token/identity/:kind',
      {
        schema: {
          operationId: 'sendSetIdentityEvidence',
          security: [],
          summary:
            'Identity verification for every document of the set: send one image (front, back of the identity document, or selfie); sent again, it replaces the last',
          tags,
          params: SetEvidenceParams,
          body: EvidenceBody,
          response: { 200: IdentityState, '4xx': ErrorResponse },
        },
      },
      async (req) => captureSetEvidence(deps, { ...req.params, image: req.body.image }),
    );

    app.post(
      '/sign/api/set/:token/identity/provider',
      {
        schema: {
          operationId: 'startSetProviderVerification',
          security: [],
          summary:
            "Identity verification for every document of the set with the operator's external provider: answers where to send the signer",
          tags,
          params: Token,
          body: SubmitBody,
          response: { 200: ProviderSession, '4xx': ErrorResponse, '5xx': ErrorResponse },
        },
      },
      async (req) => startSetProviderVerification(deps, { token: req.params.token, ip: req.ip }),
    );

    app.post(
      '/sign/api/set/:token/identity/submit',
      {
        schema: {
          operationId: 'submitSetIdentityEvidence',
          security: [],
          summary: 'Identity verification for every document of the set: submit the three images for one review',
          tags,
          params: Token,
          body: SubmitBody,
          response: { 200: IdentityState, '4xx': ErrorResponse },
        },
      },
      async (req) => submitSetEvidence(deps, { token: req.params.token, ip: req.ip }),
    );
  };
}
