// Signing with the signer's own certificate (authority CERT), in two requests around the browser,
// which keeps the key and its password (docs/api.md, "Signing with your own certificate"). No HMAC:
// the personal link's token is the credential, as for the rest of the signing API.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { finishCertSignature, prepareCertSignature } from '../../domain/signing/cert/cert-signing.js';
import { ErrorResponse } from '../../schemas/common.js';
import { CertFinishBody, CertPrepareBody, CertPrepared } from '../../schemas/cert-signing.js';
import { SignResult, TokenParams as Token } from '../../schemas/signing.js';

export function certSigningRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['signing'];
    app.post(
      '/sign/api/:token/certificate/prepare',
      {
        schema: {
          operationId: 'prepareCertSignature',
          security: [],
          summary: "CERT authority: check the signer's own certificate and prepare the signature; answers the bytes to sign",
          tags,
          params: Token,
          body: CertPrepareBody,
          response: { 200: CertPrepared, '4xx': ErrorResponse },
        },
      },
      async (req) => prepareCertSignature(deps, { token: req.params.token, body: req.body }),
    );

    app.post(
      '/sign/api/:token/certificate/finish',
      {
        schema: {
          operationId: 'finishCertSignature',
          security: [],
          summary: 'CERT authority: send the signature value made in the browser; the document is signed',
          tags,
          params: Token,
          body: CertFinishBody,
          response: { 200: SignResult, '4xx': ErrorResponse },
        },
      },
      async (req) => finishCertSignature(deps, { token: req.params.token, body: req.body, ip: req.ip }),
    );
  };
}
