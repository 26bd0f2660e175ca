// Signing with the signer's own SAT e.firma, in two requests around the browser, which keeps the
// key and its password (docs/api.md, "Signing with the SAT e.firma"). No HMAC: the personal link's
// token is the credential, as for the rest of the signing API. On a set link, the same two steps
// run once per document of the set (/sign/api/set/{token}/sat/...).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { finishSatSignature } from '../../domain/signing/sat/finish-sat-signature.js';
import { prepareSatSignature } from '../../domain/signing/sat/prepare-sat-signature.js';
import { ErrorResponse } from '../../schemas/common.js';
import { finishSetSatSignature, prepareSetSatSignature } from '../../domain/sets/sat-set-signing.js';
import { SatFinishBody, SatPrepareBody, SatPrepared, SetSatFinishBody, SetSatPrepareBody } from '../../schemas/sat-signing.js';
import { SetSignResult, SetTokenParams, SignResult, TokenParams as Token } from '../../schemas/signing.js';

export function satSigningRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['signing'];
    app.post(
      '/sign/api/:token/sat/prepare',
      {
        schema: {
          operationId: 'prepareSatSignature',
          security: [],
          summary: 'SAT authority: check the e.firma certificate and prepare the signature; answers the bytes to sign',
          tags,
          params: Token,
          body: SatPrepareBody,
          response: { 200: SatPrepared, '4xx': ErrorResponse },
        },
      },
      async (req) => prepareSatSignature(deps, { token: req.params.token, body: req.body }),
    );

    app.post(
      '/sign/api/:token/sat/finish',
      {
        schema: {
          operationId: 'finishSatSignature',
          security: [],
          summary: 'SAT authority: send the signature value made in the browser; the document is signed',
          tags,
          params: Token,
          body: SatFinishBody,
          response: { 200: SignResult, '4xx': ErrorResponse },
        },
      },
      async (req) => finishSatSignature(deps, { token: req.params.token, body: req.body, ip: req.ip }),
    );

    app.post(
      '/sign/api/set/:token/sat/prepare',
      {
        schema: {
          operationId: 'prepareSetSatSignature',
          security: [],
          summary: 'SAT authority on a set link: prepare the e.firma signature of one document of the set (document_ticket)',
          tags,
          params: SetTokenParams,
          body: SetSatPrepareBody,
          response: { 200: SatPrepared, '4xx': ErrorResponse },
        },
      },
      async (req) => prepareSetSatSignature(deps, { token: req.params.token, body: req.body }),
    );

    app.post(
      '/sign/api/set/:token/sat/finish',
      {
        schema: {
          operationId: 'finishSetSatSignature',
          security: [],
          summary: 'SAT authority on a set link: send the signature value for one document of the set; answers the set as it stands',
          tags,
          params: SetTokenParams,
          body: SetSatFinishBody,
          response: { 200: SetSignResult, '4xx': ErrorResponse },
        },
      },
      async (req) => finishSetSatSignature(deps, { token: req.params.token, body: req.body, ip: req.ip }),
    );
  };
}
