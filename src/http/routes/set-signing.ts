// The set signing API: a signer of a document set signs (or rejects) all their documents in one
// visit. No HMAC: the set link's token is the credential, as for the per-document API (signing.ts).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../domain/deps.js';
import { AppError } from '../../domain/errors.js';
import { getSetSigningInfo } from '../../domain/sets/get-set-signing-info.js';
import { sendSetCode, verifySetCode } from '../../domain/sets/set-one-time-code.js';
import { openSetSession } from '../../domain/sets/set-signing-session.js';
import { rejectSet, signSet } from '../../domain/sets/sign-set.js';
import { parseRejectionReason } from '../../domain/signing/reject-document.js';
import { parseSignatureBody } from '../../domain/signing/sign-document.js';
import { ErrorResponse, SignBody } from '../schemas.js';
import { asObject } from './documents.js';

const Token = Type.Object({ token: Type.String() });
// Bodies are checked by the use cases, whose messages name the field; schemas document them.
const documentOnly = () => () => true;

const Rect = Type.Object({ lx: Type.Number(), ly: Type.Number(), tx: Type.Number(), ty: Type.Number() });

const SetSigningInfo = Type.Object({
  set: Type.Object({ uuid: Type.String(), name: Type.String(), status: Type.String() }),
  signer: Type.Object({
    signer_id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    email: Type.Union([Type.String(), Type.Null()]),
    authority: Type.String(),
    status: Type.String(),
    signed_at: Type.Union([Type.String(), Type.Null()]),
    proof: Type.String({ description: 'link, email_code or not_available' }),
    verified: Type.Boolean(),
    due: Type.Boolean({ description: 'false while an ordered flow has not reached this signer' }),
  }),
  signers: Type.Array(Type.Object({ name: Type.Union([Type.String(), Type.Null()]), status: Type.String() })),
  documents: Type.Array(
    Type.Object({
      document_ticket: Type.String(),
      name: Type.String(),
      status: Type.String(),
      signer_status: Type.String(),
      signed_at: Type.Union([Type.String(), Type.Null()]),
      pages: Type.Array(Type.Object({ page: Type.Integer(), width: Type.Number(), height: Type.Number(), rotation: Type.Integer() })),
      boxes: Type.Array(Type.Object({ sticker_id: Type.String(), page: Type.Integer(), rect: Rect })),
      pdf_url: Type.String(),
    }),
  ),
  language: Type.Union([Type.Literal('es'), Type.Literal('en'), Type.Null()]),
});

export function setSigningRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    const tags = ['signing'];
    const tokenOf = (req: { params: unknown }) => (req.params as { token: string }).token;

    app.get(
      '/sign/api/set/:token',
      {
        schema: {
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
          summary: 'One document of the set as it stands (every signature so far)',
          tags,
          params: Type.Object({ token: Type.String(), ticket: Type.String() }),
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
          summary: 'Sign every document of the set where this signer still has to sign (one PAdES signature each)',
          tags,
          params: Token,
          body: SignBody,
          response: {
            200: Type.Object({
              status: Type.Literal('signed'),
              signed_at: Type.String(),
              set_status: Type.String(),
              documents: Type.Array(Type.Object({ document_ticket: Type.String(), status: Type.String(), signer_status: Type.String() })),
            }),
            '4xx': ErrorResponse,
          },
        },
        validatorCompiler: documentOnly,
      },
      async (req) => signSet(deps, { token: tokenOf(req), signature: parseSignatureBody(asObject(req.body)), ip: req.ip }),
    );

    app.post(
      '/sign/api/set/:token/reject',
      {
        schema: {
          summary: 'Reject the set, with a reason of at most 300 characters: the set is REJECTED, its other documents cancelled',
          tags,
          params: Token,
          body: Type.Object({ reason: Type.String() }),
          response: {
            200: Type.Object({
              status: Type.Literal('rejected'),
              rejected_at: Type.String(),
              rejected_document: Type.String(),
              set_status: Type.String(),
            }),
            '4xx': ErrorResponse,
          },
        },
        validatorCompiler: documentOnly,
      },
      async (req) => rejectSet(deps, { token: tokenOf(req), reason: parseRejectionReason(asObject(req.body)), ip: req.ip }),
    );

    app.post(
      '/sign/api/set/:token/otp',
      {
        schema: {
          summary: 'EMAIL authority: send a one-time code that proves the signer for all their documents',
          tags,
          params: Token,
          response: { '4xx': ErrorResponse },
        },
      },
      async (req) => sendSetCode(deps, tokenOf(req), req.ip),
    );

    app.post(
      '/sign/api/set/:token/otp/verify',
      {
        schema: {
          summary: 'EMAIL authority: prove the one-time code (valid for every document of the set)',
          tags,
          params: Token,
          body: Type.Object({ code: Type.String({ pattern: '^[0-9]{6}$' }) }),
          response: { '4xx': ErrorResponse },
        },
        validatorCompiler: documentOnly,
      },
      async (req) => verifySetCode(deps, tokenOf(req), asObject(req.body), req.ip),
    );
  };
}
