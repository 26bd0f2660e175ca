// The public PKI endpoints (no HMAC: validators call them): certificates, CRLs, the OCSP responder
// (RFC 6960, POST and GET) and the RFC 3161 time-stamp authority.
import type { FastifyInstance } from 'fastify';
import { certificatesToPem, decodeOcspGetRequest, derToPem } from '../../pki/index.js';
import type { PkiResponder } from '../../domain/pki/pki-responses.js';
import { errorBody } from '../errors.js';

// OCSP and time-stamp requests are a few hundred bytes; anything much larger is not one.
const MAX_REQUEST_BYTES = 64 * 1024;

export function pkiRoutes(responder: PkiResponder) {
  const { pki } = responder;
  return async function routes(app: FastifyInstance) {
    for (const type of ['application/ocsp-request', 'application/timestamp-query']) {
      app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: MAX_REQUEST_BYTES }, (_req, body, done) => done(null, body));
    }
    const tags = ['pki'];

    app.get(
      '/pki/ca.pem',
      { schema: { summary: 'The root certificate (PEM): the trust anchor of signatures', tags } },
      async (_req, reply) => reply.type('application/x-pem-file').send(derToPem(pki.root.certificateDer, 'CERTIFICATE')),
    );
    app.get('/pki/chain.pem', { schema: { summary: 'The issuing CA and the root (PEM)', tags } }, async (_req, reply) =>
      reply.type('application/x-pem-file').send(certificatesToPem(pki.chainDer)),
    );
    app.get(
      '/pki/issuing.cer',
      { schema: { summary: 'The issuing CA certificate (DER): the caIssuers target', tags } },
      async (_req, reply) => reply.type('application/pkix-cert').send(pki.issuing.certificateDer),
    );
    app.get('/pki/crl', { schema: { summary: "The issuing CA's certificate revocation list (DER)", tags } }, async (_req, reply) =>
      reply
        .type('application/pkix-crl')
        .header('cache-control', 'max-age=300')
        .send(await responder.crl('issuing')),
    );
    app.get('/pki/root-crl', { schema: { summary: "The root's certificate revocation list (DER)", tags } }, async (_req, reply) =>
      reply
        .type('application/pkix-crl')
        .header('cache-control', 'max-age=300')
        .send(await responder.crl('root')),
    );
    app.post('/pki/ocsp', { schema: { summary: 'OCSP responder (RFC 6960), application/ocsp-request', tags } }, async (req, reply) => {
      if (!Buffer.isBuffer(req.body)) {
        return reply.code(415).send(errorBody('UNSUPPORTED_MEDIA_TYPE', 'expected Content-Type: application/ocsp-request'));
      }
      return reply.type('application/ocsp-response').send(await responder.ocsp(req.body));
    });
    app.get('/pki/ocsp/*', { schema: { summary: 'OCSP responder, GET form (RFC 6960 appendix A.1)', tags } }, async (req, reply) => {
      const encoded = (req.params as { '*': string })['*'];
      const der = decodeOcspGetRequest(encoded);
      const body = der ? await responder.ocsp(der) : await responder.ocsp(new Uint8Array());
      return reply.type('application/ocsp-response').send(body);
    });
    app.post('/tsa', { schema: { summary: 'Time-stamp authority (RFC 3161), application/timestamp-query', tags } }, async (req, reply) => {
      if (!Buffer.isBuffer(req.body)) {
        return reply.code(415).send(errorBody('UNSUPPORTED_MEDIA_TYPE', 'expected Content-Type: application/timestamp-query'));
      }
      return reply.type('application/timestamp-reply').send(await responder.timestamp(req.body));
    });
  };
}
