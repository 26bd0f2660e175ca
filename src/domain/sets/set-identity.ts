// POST /sign/api/set/{token}/identity/{kind}, /identity/submit and /identity/provider: a signer of a
// document set asked to verify their identity (on any of their documents of the set) sends the
// images once, for the whole set. Each call goes through the per-document use case
// (capture-evidence.ts, external-provider.ts) on one of their rows still to sign; those keep the
// images and the review on the set signer (identity-repo.ts identitySubjectOf), so the one review's
// decision applies to each of their documents.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { type IdentityState, captureEvidence, identityState, submitEvidence } from '../identity/capture-evidence.js';
import { startProviderVerification } from '../identity/external-provider.js';
import { openRows, openSetSession, rowSession, rowToken, type SetSigningSession } from './set-signing-session.js';

const SET_CLOSED_FOR_IDENTITY: Record<string, string> = {
  OPEN: 'this set has not been sent for signing yet',
  COMPLETED: 'every document of this set is already signed',
  REJECTED: 'a signer rejected a document of this set; it can no longer be signed',
  EXPIRED: 'the signing period of this set has ended',
  CANCELLED: 'the signing of this set was cancelled',
};

/**
 * The per-document link of one of the set signer's rows still to sign. Unlike signing, verifying
 * does not wait for an ordered flow to reach the person (as for a document of its own).
 */
async function verifyingRowToken(deps: Pick<Deps, 'db' | 'secrets'>, token: string): Promise<string> {
  const s = await openSetSession(deps.db, token);
  const reason = SET_CLOSED_FOR_IDENTITY[s.set.status];
  if (reason) {
    throw new AppError('DOCUMENT_NOT_SIGNABLE', reason, { status: s.set.status });
  }
  const open = openRows(s);
  if (s.signer.status === 'rejected' || s.signer.status === 'signed' || open.length === 0) {
    throw new AppError('ALREADY_SIGNED', 'you have already signed or rejected every document of this set');
  }
  return rowToken(deps, open[0]);
}

export async function captureSetEvidence(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'config' | 'imageJail'>,
  o: { token: string; kind: string; image: string },
): Promise<IdentityState> {
  return captureEvidence(deps, { ...o, token: await verifyingRowToken(deps, o.token) });
}

export async function submitSetEvidence(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'secrets'>,
  o: { token: string; ip?: string },
): Promise<IdentityState> {
  return submitEvidence(deps, { ...o, token: await verifyingRowToken(deps, o.token) });
}

/** The provider sends the signer back to the set's page. */
export async function startSetProviderVerification(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'secrets'>,
  o: { token: string; ip?: string },
): Promise<{ url: string }> {
  return startProviderVerification(deps, {
    token: await verifyingRowToken(deps, o.token),
    ip: o.ip,
    returnPath: `/sign/set/${o.token}`,
  });
}

const NOT_ASKED: IdentityState = {
  required: false,
  status: null,
  captured: [],
  submitted: false,
  provider: null,
  reason: null,
  retry: false,
  documents: 0,
};

/** The set signer's identity state for the set page: the same for each of their rows. */
export async function setIdentityState(deps: Pick<Deps, 'db' | 'secrets' | 'config'>, s: SetSigningSession): Promise<IdentityState> {
  const row = openRows(s)[0] ?? s.rows.find((r) => r.identity_status !== null) ?? s.rows[0];
  if (!row || row.identity_status === null || !row.token_sealed) {
    return NOT_ASKED;
  }
  return identityState(deps.db, await rowSession(deps, row), deps.config.identity.provider?.name ?? null);
}
