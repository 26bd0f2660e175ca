// POST /sign/api/set/{token}/sat/prepare and /sat/finish: a SAT signer signs every document of a
// set in one visit with their own e.firma. The browser decrypts the key once and runs the two
// steps for each document in turn; each step is the per-document one (prepare-sat-signature.ts,
// finish-sat-signature.ts) on that document's signer row, so the set's flow moves with each
// signature exactly as with the other authorities (sign-set.ts).
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { finishSatSignature, parseSatFinishBody } from '../signing/sat/finish-sat-signature.js';
import { parseSatPrepareBody, prepareSatSignature } from '../signing/sat/prepare-sat-signature.js';
import type { SatPrepared } from '../../schemas/sat-signing.js';
import type { SetSignResult } from '../../schemas/signing.js';
import { retryTransientConflict } from '../../store/transient-conflict.js';
import { openSetSession, requireSetActionable, rowToken } from './set-signing-session.js';

/** The document_ticket of a set SAT request; INVALID_INPUT naming it when absent. */
export function parseDocumentTicket(body: Record<string, unknown>): string {
  const ticket = body.document_ticket;
  if (typeof ticket !== 'string' || ticket.trim() === '') {
    throw invalid('document_ticket', 'required: the ticket of the document of the set to sign');
  }
  return ticket.trim();
}

/** The signer row of `ticket` among those still waiting for this person's signature. */
async function openRowToken(deps: Deps, token: string, ticket: string): Promise<string> {
  const s = await openSetSession(deps.db, token);
  if (s.signer.authority !== 'SAT') {
    throw new AppError('INVALID_STATE', `the e.firma is for signers of the SAT authority; this signer's is ${s.signer.authority}`);
  }
  const open = await requireSetActionable(deps.db, s);
  const row = open.find((r) => r.ticket === ticket);
  if (!row) {
    const known = s.rows.some((r) => r.ticket === ticket);
    throw known
      ? new AppError('ALREADY_SIGNED', `document ${ticket} of this set does not wait for your signature any more`)
      : new AppError('DOCUMENT_NOT_FOUND', `document_ticket: no document ${ticket} in this set has a box of yours`, {
          field: 'document_ticket',
        });
  }
  return rowToken(deps, row);
}

export async function prepareSetSatSignature(deps: Deps, o: { token: string; body: Record<string, unknown> }): Promise<SatPrepared> {
  const ticket = parseDocumentTicket(o.body);
  const input = parseSatPrepareBody(o.body);
  const rowTokenOf = await openRowToken(deps, o.token, ticket);
  return retryTransientConflict(() => prepareSatSignature(deps, { token: rowTokenOf, ...input }));
}

export async function finishSetSatSignature(
  deps: Deps,
  o: { token: string; body: Record<string, unknown>; ip?: string },
): Promise<SetSignResult> {
  const ticket = parseDocumentTicket(o.body);
  const input = parseSatFinishBody(o.body);
  const rowTokenOf = await openRowToken(deps, o.token, ticket);
  const signed = await retryTransientConflict(() => finishSatSignature(deps, { token: rowTokenOf, ...input, ip: o.ip }));
  const after = await openSetSession(deps.db, o.token);
  return {
    status: 'signed',
    signed_at: signed.signed_at,
    set_status: after.set.status,
    documents: after.rows.map((r) => ({ document_ticket: r.ticket, status: r.document_status, signer_status: r.status })),
  };
}
