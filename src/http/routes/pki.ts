// The public PKI endpoints (no HMAC: validators call them): certificates, CRLs, the OCSP responder
// (RFC 6960, POST and GET) and the RFC 3161 time-stamp authority.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { certificatesToPem, decodeOcspGetRequest, derToPem } from '../../pki/index.js';
import type { PkiResponder } from '../../domain/pki/pki-responses.js';
import { errorBody } from '../errors.js';
import type { TypedApp } from '../typed-app.js';
import { ErrorResponse } from '../../schemas/common.js';
import { BinaryFile, OcspGetParams, OcspRequestBody, PemFile, TimestampQueryBody } from '../../schemas/service.js';

// OCSP and time-stamp requests are a few hundred bytes; anything much larger is not one.
const MAX_REQUEST_BYTES = 64 * 1024;

const tags = ['pki'];

export function pkiRoutes(responder: PkiResponder) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    for (const type of ['application/ocsp-request', 'application/timestamp-query']) {
      app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: MAX_REQUEST_BYTES }, (_req, body, done) => done(null, body));
    }
    certificateRoutes(app, responder);
    revocationRoutes(app, responder);
    timestampRoute(app, responder);
  };
}

/** The certificates of the chain, for validators and for people who add the root to their trust. */
// Read from the responder at each request: the material in use changes when another process stores
// new material (follow-pki-changes.ts).
function certificateRoutes(app: TypedApp, responder: PkiResponder) {
  app.get(
    '/pki/ca.pem',
    {
      schema: {
        operationId: 'getRootCertificate',
        security: [],
        summary: 'The root certificate (PEM): the trust anchor of signatures',
        tags,
        response: { 200: PemFile('the root certificate') },
      },
    },
    async (_req, reply) => reply.type('application/x-pem-file').send(derToPem(responder.pki.root.certificateDer, 'CERTIFICATE')),
  );
  app.get(
    '/pki/chain.pem',
    {
      schema: {
        operationId: 'getCaChain',
        security: [],
        summary: 'The issuing CA and the root (PEM)',
        tags,
        response: { 200: PemFile('the issuing CA, then the root') },
      },
    },
    async (_req, reply) => reply.type('application/x-pem-file').send(certificatesToPem(responder.pki.chainDer)),
  );
  app.get(
    '/pki/issuing.cer',
    {
      schema: {
        operationId: 'getIssuingCertificate',
        security: [],
        summary: 'The issuing CA certificate (DER): the caIssuers target',
        tags,
        response: { 200: BinaryFile('application/pkix-cert', 'the issuing CA certificate') },
      },
    },
    async (_req, reply) => reply.type('application/pkix-cert').send(responder.pki.issuing.certificateDer),
  );
}

/** What a validator asks of a certificate's status: the CRLs and the OCSP responder (POST and GET). */
function revocationRoutes(app: TypedApp, responder: PkiResponder) {
  const crls = [
    { url: '/pki/crl', which: 'issuing', operationId: 'getIssuingCrl', summary: "The issuing CA's certificate revocation list (DER)" },
    { url: '/pki/root-crl', which: 'root', operationId: 'getRootCrl', summary: "The root's certificate revocation list (DER)" },
  ] as const;
  for (const crl of crls) {
    app.get(
      crl.url,
      {
        schema: {
          operationId: crl.operationId,
          security: [],
          summary: crl.summary,
          tags,
          response: { 200: BinaryFile('application/pkix-crl', 'the CRL') },
        },
      },
      async (_req, reply) =>
        reply
          .type('application/pkix-crl')
          .header('cache-control', 'max-age=300')
          .send(await responder.crl(crl.which)),
    );
  }
  app.post(
    '/pki/ocsp',
    {
      schema: {
        operationId: 'postOcspRequest',
        security: [],
        summary: 'OCSP responder (RFC 6960), application/ocsp-request',
        tags,
        consumes: ['application/ocsp-request'],
        body: OcspRequestBody,
        response: { 200: BinaryFile('application/ocsp-response', 'the OCSP response'), 415: ErrorResponse },
      },
    },
    async (req, reply) => {
      if (!Buffer.isBuffer(req.body)) {
        return reply.code(415).send(errorBody('UNSUPPORTED_MEDIA_TYPE', 'expected Content-Type: application/ocsp-request'));
      }
      return reply.type('application/ocsp-response').send(await responder.ocsp(req.body));
    },
  );
  app.get(
    '/pki/ocsp/*',
    {
      schema: {
        operationId: 'getOcspResponse',
        security: [],
        summary: 'OCSP responder, GET form (RFC 6960 appendix A.1)',
        tags,
        params: OcspGetParams,
        response: { 200: BinaryFile('application/ocsp-response', 'the OCSP response') },
      },
    },
    async (req, reply) => {
      const encoded = req.params['*'];
      const der = decodeOcspGetRequest(encoded);
      const body = der ? await responder.ocsp(der) : await responder.ocsp(new Uint8Array());
      return reply.type('application/ocsp-response').send(body);
    },
  );
}

/** The RFC 3161 time-stamp authority. */
function timestampRoute(app: TypedApp, responder: PkiResponder) {
  app.post(
    '/tsa',
    {
      schema: {
        operationId: 'requestTimestamp',
        security: [],
        summary: 'Time-stamp authority (RFC 3161), application/timestamp-query',
        tags,
        consumes: ['application/timestamp-query'],
        body: TimestampQueryBody,
        response: { 200: BinaryFile('application/timestamp-reply', 'the time-stamp response'), 415: ErrorResponse },
      },
    },
    async (req, reply) => {
      if (!Buffer.isBuffer(req.body)) {
        return reply.code(415).send(errorBody('UNSUPPORTED_MEDIA_TYPE', 'expected Content-Type: application/timestamp-query'));
      }
      return reply.type('application/timestamp-reply').send(await responder.timestamp(req.body));
    },
  );
}
