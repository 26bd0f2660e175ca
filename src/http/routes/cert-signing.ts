// Signing with the signer's own certificate (authority CERT), in two requests around the browser,
// which keeps the key and its password (docs/api.md, "Signing with your own certificate"). No HMAC:
// the personal link's token is the credential, as for the rest of the signing API. On a set link, the
// same two steps run once per document of the set (/sign/api/set/{token}/certificate/...).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { finishSetCertSignature, prepareSetCertSignature } from '../../domain/sets/cert-set-signing.js';
import { finishCertSignature, prepareCertSignature } from '../../domain/signing/cert/cert-signing.js';
import { ErrorResponse } from '../../schemas/common.js';
import { CertFinishBody, CertPrepareBody, CertPrepared, SetCertFinishBody, SetCertPrepareBody } from '../../schemas/cert-signing.js';
import { SetSignResult, SetTokenParams, SignResult, TokenParams as Token } from '../../schemas/signing.js';

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

    app.post(
      '/sign/api/set/:token/certificate/prepare',
      {
        schema: {
          operationId: 'prepareSetCertSignature',
          security: [],
          summary:
            'CERT authority on a set link: check the certificate and prepare the signature of one document of the set (document_ticket)',
          tags,
          params: SetTokenParams,
          body: SetCertPrepareBody,
          response: { 200: CertPrepared, '4xx': ErrorResponse },
        },
      },
      async (req) => prepareSetCertSignature(deps, { token: req.params.token, body: req.body }),
    );

    app.post(
      '/sign/api/set/:token/certificate/finish',
      {
        schema: {
          operationId: 'finishSetCertSignature',
          security: [],
          summary: 'CERT authority on a set link: send the signature value for one document of the set; answers the set as it stands',
          tags,
          params: SetTokenParams,
          body: SetCertFinishBody,
          response: { 200: SetSignResult, '4xx': ErrorResponse },
        },
      },
      async (req) => finishSetCertSignature(deps, { token: req.params.token, body: req.body, ip: req.ip }),
    );
  };
}
