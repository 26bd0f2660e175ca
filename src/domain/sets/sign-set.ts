// POST /sign/api/set/{token}/sign and /reject: a set signer acts on the whole set in one visit.
// Signing makes one PAdES signature per document where this person still has to sign, each through
// the per-document signing path (its own transaction, certificate, time stamp and revision, and the
// set's flow moved by each one). Rejecting rejects the first of their documents still to sign, which
// rejects the set (stopSetAfterRejection): its other documents are cancelled.
import { AppError } from '../errors.js';
import { requireIdentityStatusVerified } from '../identity/require-identity.js';
import type { Deps } from '../deps.js';
import { isProven, provenByCode, SENT_BY } from '../signing/one-time-code.js';
import { readRejectionReason, rejectWith } from '../signing/reject-document.js';
import { refuseEfirmaSignerOnSign } from '../signing/sat/efirma-required.js';
import { readSignature, signWith } from '../signing/sign-document.js';
import { openSetSession, requireSetActionable, rowSession, rowToken, type SetSigningSession } from './set-signing-session.js';
import type { RejectBody, SetRejectResult, SetSignResult, SignBody } from '../../schemas/signing.js';
import { checkSetFieldValues } from './set-field-values.js';

export type { SetSignResult };

export async function signSet(deps: Deps, o: { token: string; body: SignBody; ip?: string }): Promise<SetSignResult> {
  // Read once, before the set is opened, and drawn on every document.
  const signature = readSignature(o.body.signature);
  const s = await openSetSession(deps.db, o.token);
  const open = await requireSetActionable(deps.db, s);
  // Asked to verify their identity on any document of the set, the person verifies once before
  // the first signature (identity-repo.ts spreadSetIdentityRequirement): never half the set signed.
  for (const row of open) {
    requireIdentityStatusVerified(row.identity_status);
  }
  await requireProven(deps, s, open[0]);
  await checkSetFieldValues(deps, { accountId: s.set.account_id, rows: open, values: o.body.field_values });
  let signedAt = deps.clock.now().toISOString();
  for (const row of open) {
    try {
      const input = {
        token: rowToken(deps, row),
        signature,
        ip: o.ip,
        language: o.body.language,
        fieldValues: o.body.field_values,
        unknownFieldsChecked: true,
      };
      // Another set signer rejecting at this moment ends the set under this signature's feet: signWith
      // runs the signature again when PostgreSQL rolled it back for that reason.
      signedAt = (await signWith(deps, input)).signed_at;
    } catch (err) {
      // The same person signing from a second tab at the same moment: that document is signed.
      if (err instanceof AppError && err.code === 'ALREADY_SIGNED') {
        continue;
      }
      throw err;
    }
  }
  const after = await openSetSession(deps.db, o.token);
  return {
    status: 'signed',
    signed_at: signedAt,
    set_status: after.set.status,
    documents: after.rows.map((r) => ({ document_ticket: r.ticket, status: r.document_status, signer_status: r.status })),
  };
}

export async function rejectSet(deps: Deps, o: { token: string; body: RejectBody; ip?: string }): Promise<SetRejectResult> {
  const reason = readRejectionReason(o.body.reason);
  const s = await openSetSession(deps.db, o.token);
  const open = await requireSetActionable(deps.db, s);
  const r = await rejectWith(deps, { token: rowToken(deps, open[0]), reason, ip: o.ip });
  const after = await openSetSession(deps.db, o.token);
  return { status: 'rejected' as const, rejected_at: r.rejected_at, rejected_document: open[0].ticket, set_status: after.set.status };
}

/**
 * The proof is checked once, before the first signature, so a signer who cannot sign never leaves
 * the set half signed (signDocument checks it again for each document).
 */
async function requireProven(deps: Deps, s: SetSigningSession, first: SetSigningSession['rows'][number]): Promise<void> {
  if (s.signer.authority === 'EMAIL_LINK') {
    return;
  }
  refuseEfirmaSignerOnSign(deps, s.signer.authority, 'set');
  if (!provenByCode(s.signer.authority)) {
    throw new AppError('AUTHORITY_NOT_AVAILABLE', `signing with authority ${s.signer.authority} is not available on this server yet`, {
      authority: s.signer.authority,
    });
  }
  if (!(await isProven(deps, await rowSession(deps, first)))) {
    throw new AppError(
      'VERIFICATION_REQUIRED',
      `enter the code sent ${SENT_BY[s.signer.authority]} first (POST .../otp, then .../otp/verify)`,
    );
  }
}
