// The signing API used by the signer page and by applications that embed signing. No HMAC: the
// personal link's token is the credential (long, random, stored hashed, bound to one signer).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { getSigningInfo } from '../../domain/signing/get-signing-info.js';
import { rejectDocument } from '../../domain/signing/reject-document.js';
import { signDocument } from '../../domain/signing/sign-document.js';
import { openSession } from '../../domain/signing/signing-session.js';
import { sendOneTimeCode, verifyOneTimeCode } from '../../domain/signing/one-time-code.js';
import { ErrorResponse, NoBody, PdfFile } from '../../schemas/common.js';
import {
  CodeBody,
  CodeSent,
  CodeVerified,
  RejectBody,
  RejectResult,
  SignBody,
  SignResult,
  SigningInfo,
  TokenParams as Token,
} from '../../schemas/signing.js';
import type { TypedApp } from '../typed-app.js';
import { sendPdf } from '../byte-ranges.js';

const tags = ['signing'];

export function signingRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    documentRoutes(app, deps);
    codeRoutes(app, deps);
  };
}

/** What the signer sees, and their answer: sign or reject. */
function documentRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/sign/api/:token',
    {
      schema: {
        operationId: 'getSigningSession',
        security: [],
        summary: 'The document, its pages, this signer, the boxes to sign and the state',
        tags,
        params: Token,
        response: { 200: SigningInfo, '4xx': ErrorResponse },
      },
    },
    async (req) => getSigningInfo(deps, req.params.token, req.ip),
  );

  app.get(
    '/sign/api/:token/pdf',
    {
      schema: {
        operationId: 'getSigningPdf',
        security: [],
        summary: 'The PDF as it stands (every signature so far), whole or a byte range',
        tags,
        params: Token,
        response: { 200: PdfFile, 206: PdfFile, '4xx': ErrorResponse },
      },
    },
    async (req, reply) => {
      const s = await openSession(deps.db, req.params.token);
      const sha256 = s.document.original_sha256;
      return sendPdf(req, reply, { bytes: await deps.blobs.get(sha256), sha256, name: s.document.name });
    },
  );

  app.post(
    '/sign/api/:token/sign',
    {
      schema: {
        operationId: 'signDocument',
        security: [],
        summary: 'Sign: a drawn (PNG) or typed signature, with consent',
        tags,
        params: Token,
        body: SignBody,
        response: { 200: SignResult, '4xx': ErrorResponse },
      },
    },
    async (req) => signDocument(deps, { token: req.params.token, body: req.body, ip: req.ip }),
  );

  app.post(
    '/sign/api/:token/reject',
    {
      schema: {
        operationId: 'rejectDocument',
        security: [],
        summary: 'Reject the document, with a reason of at most 300 characters',
        tags,
        params: Token,
        body: RejectBody,
        response: { 200: RejectResult, '4xx': ErrorResponse },
      },
    },
    async (req) => rejectDocument(deps, { token: req.params.token, body: req.body, ip: req.ip }),
  );
}

/** The one-time codes of the EMAIL, SMS and WHATSAPP authorities. */
function codeRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/sign/api/:token/otp',
    {
      schema: {
        operationId: 'sendSigningCode',
        security: [],
        summary: "EMAIL, SMS, WHATSAPP authorities: send a one-time code to the signer's address or phone",
        tags,
        params: Token,
        body: NoBody,
        response: { 200: CodeSent, '4xx': ErrorResponse },
      },
    },
    async (req) => sendOneTimeCode(deps, req.params.token, req.ip),
  );

  app.post(
    '/sign/api/:token/otp/verify',
    {
      schema: {
        operationId: 'verifySigningCode',
        security: [],
        summary: 'EMAIL, SMS, WHATSAPP authorities: prove the one-time code',
        tags,
        params: Token,
        body: CodeBody,
        response: { 200: CodeVerified, '4xx': ErrorResponse },
      },
    },
    async (req) => verifyOneTimeCode(deps, req.params.token, req.body, req.ip),
  );
}
