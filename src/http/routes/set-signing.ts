// The set signing API: a signer of a document set signs (or rejects) all their documents in one
// visit. No HMAC: the set link's token is the credential, as for the per-document API (signing.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { AppError } from '../../domain/errors.js';
import { getSetSigningInfo } from '../../domain/sets/get-set-signing-info.js';
import { sendSetCode, verifySetCode } from '../../domain/sets/set-one-time-code.js';
import { openSetSession } from '../../domain/sets/set-signing-session.js';
import { rejectSet, signSet } from '../../domain/sets/sign-set.js';
import { ErrorResponse, NoBody, PdfFile } from '../../schemas/common.js';
import {
  CodeBody,
  CodeSent,
  CodeVerified,
  RejectBody,
  SetDocumentParams,
  SetRejectResult,
  SetSignResult,
  SetSigningInfo,
  SetTokenParams as Token,
  SignBody,
} from '../../schemas/signing.js';
import type { TypedApp } from '../typed-app.js';
import { sendPdf } from '../byte-ranges.js';

const tags = ['signing'];

export function setSigningRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    setDocumentRoutes(app, deps);
    setCodeRoutes(app, deps);
  };
}

/** The set as this signer sees it, and their answer: sign every document or reject the set. */
function setDocumentRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/sign/api/set/:token',
    {
      schema: {
        operationId: 'getSetSigningSession',
        security: [],
        summary: 'A document set to sign in one visit: the set, this signer, and every document where they have a box',
        tags,
        params: Token,
        response: { 200: SetSigningInfo, '4xx': ErrorResponse },
      },
    },
    async (req) => getSetSigningInfo(deps, req.params.token, req.ip),
  );

  app.get(
    '/sign/api/set/:token/document/:ticket/pdf',
    {
      schema: {
        operationId: 'getSetDocumentPdf',
        security: [],
        summary: 'One document of the set as it stands (every signature so far), whole or a byte range',
        tags,
        params: SetDocumentParams,
        response: { 200: PdfFile, 206: PdfFile, '4xx': ErrorResponse },
      },
    },
    async (req, reply) => {
      const { token, ticket } = req.params;
      const s = await openSetSession(deps.db, token);
      const row = s.rows.find((r) => r.ticket === ticket);
      if (!row) {
        throw new AppError('DOCUMENT_NOT_FOUND', `no document ${ticket} for this signer in the set`);
      }
      const sha256 = row.original_sha256;
      return sendPdf(req, reply, { bytes: await deps.blobs.get(sha256), sha256, name: row.document_name });
    },
  );

  app.post(
    '/sign/api/set/:token/sign',
    {
      schema: {
        operationId: 'signSet',
        security: [],
        summary: 'Sign every document of the set where this signer still has to sign (one PAdES signature each)',
        tags,
        params: Token,
        body: SignBody,
        response: { 200: SetSignResult, '4xx': ErrorResponse },
      },
    },
    async (req) => signSet(deps, { token: req.params.token, body: req.body, ip: req.ip }),
  );

  app.post(
    '/sign/api/set/:token/reject',
    {
      schema: {
        operationId: 'rejectSet',
        security: [],
        summary: 'Reject the set, with a reason of at most 300 characters: the set is REJECTED, its other documents cancelled',
        tags,
        params: Token,
        body: RejectBody,
        response: { 200: SetRejectResult, '4xx': ErrorResponse },
      },
    },
    async (req) => rejectSet(deps, { token: req.params.token, body: req.body, ip: req.ip }),
  );
}

/** EMAIL authority: one code proves the signer for all their documents of the set. */
function setCodeRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/sign/api/set/:token/otp',
    {
      schema: {
        operationId: 'sendSetSigningCode',
        security: [],
        summary: 'EMAIL authority: send a one-time code that proves the signer for all their documents',
        tags,
        params: Token,
        body: NoBody,
        response: { 200: CodeSent, '4xx': ErrorResponse },
      },
    },
    async (req) => sendSetCode(deps, req.params.token, req.ip),
  );

  app.post(
    '/sign/api/set/:token/otp/verify',
    {
      schema: {
        operationId: 'verifySetSigningCode',
        security: [],
        summary: 'EMAIL authority: prove the one-time code (valid for every document of the set)',
        tags,
        params: Token,
        body: CodeBody,
        response: { 200: CodeVerified, '4xx': ErrorResponse },
      },
    },
    async (req) => verifySetCode(deps, req.params.token, req.body, req.ip),
  );
}
