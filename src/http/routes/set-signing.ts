// The set signing API: a signer of a document set signs (or rejects) all their documents in one
// visit. No HMAC: the set link's token is the credential, as for the per-document API (signing.ts).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { AppError } from '../../domain/errors.js';
import { getSetSigningInfo } from '../../domain/sets/get-set-signing-info.js';
import { sendSetCode, verifySetCode } from '../../domain/sets/set-one-time-code.js';
import { openSetSession } from '../../domain/sets/set-signing-session.js';
import { rejectSet, signSet } from '../../domain/sets/sign-set.js';
import { parseRejectionReason } from '../../domain/signing/reject-document.js';
import { parseSignatureBody, parseSignLanguage } from '../../domain/signing/sign-document.js';
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
import { asObject } from './documents.js';

export function setSigningRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    const tags = ['signing'];
    const tokenOf = (req: { params: unknown }) => (req.params as { token: string }).token;

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
      async (req) => getSetSigningInfo(deps, tokenOf(req), req.ip),
    );

    app.get(
      '/sign/api/set/:token/document/:ticket/pdf',
      {
        schema: {
          operationId: 'getSetDocumentPdf',
          security: [],
          summary: 'One document of the set as it stands (every signature so far)',
          tags,
          params: SetDocumentParams,
          response: { 200: PdfFile, '4xx': ErrorResponse },
        },
      },
      async (req, reply) => {
        const { ticket } = req.params as { token: string; ticket: string };
        const s = await openSetSession(deps.db, tokenOf(req));
        const row = s.rows.find((r) => r.ticket === ticket);
        if (!row) {
          throw new AppError('DOCUMENT_NOT_FOUND', `no document ${ticket} for this signer in the set`);
        }
        return reply
          .type('application/pdf')
          .header('content-disposition', `inline; filename*=UTF-8''${encodeURIComponent(row.document_name)}`)
          .header('cache-control', 'no-store')
          .send(await deps.blobs.get(row.original_sha256));
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
      async (req) =>
        signSet(deps, {
          token: tokenOf(req),
          signature: parseSignatureBody(asObject(req.body)),
          language: parseSignLanguage(asObject(req.body)),
          ip: req.ip,
        }),
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
      async (req) => rejectSet(deps, { token: tokenOf(req), reason: parseRejectionReason(asObject(req.body)), ip: req.ip }),
    );

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
      async (req) => sendSetCode(deps, tokenOf(req), req.ip),
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
      async (req) => verifySetCode(deps, tokenOf(req), asObject(req.body), req.ip),
    );
  };
}
