// POST /sign/api/{token}/csc/authorize: a CSC signer leaves for their provider's authorization page.
// The service answers the page's address (OAuth 2.0 authorization code, RFC 6749 §4.1, with PKCE
// S256, RFC 7636, and the CSC API v2's scope `service`: enough to list the signer's credentials and
// read their certificates, and to sign with a credential the provider authorizes by its own means)
// and keeps what the return needs: the
// state (hashed: it travels in URLs and logs), the PKCE verifier (sealed), the signer, the provider.
// The state is unguessable and used once, so a return cannot be forged or replayed for another
// signer (RFC 6749 §10.12). From a set link, one authorization serves every document of the set.
import { createHash, randomBytes } from 'node:crypto';
import type { CscProvider } from '../../../config.js';
import { dropExpiredCscAuthorizations, insertCscAuthorization } from '../../../store/csc-repo.js';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { requireIdentityStatusVerified, requireIdentityVerified } from '../../identity/require-identity.js';
import { openSetSession, requireSetActionable } from '../../sets/set-signing-session.js';
import { checkSetFieldValues } from '../../sets/set-field-values.js';
import { openSession, requireSignable } from '../signing-session.js';
import { legendLanguage } from '../workflow-language.js';
import { fieldsOfSigner } from '../../../store/signer-fields-repo.js';
import { accountTimeZone } from '../../../store/workflow-repo.js';
import type { FieldValues } from '../../../schemas/signer-fields.js';
import { checkFieldValues, refuseUnknownFields } from '../signer-fields.js';

/** How long the signer has to authorize at the provider and come back. */
const AUTHORIZE_MINUTES = 10;

/** The redirect URI registered at the provider: the operator's, or this service's callback. */
export const redirectUriOf = (deps: Pick<Deps, 'config'>, provider: CscProvider) =>
  provider.redirectUri ?? `${deps.config.publicUrl.replace(/\/+$/, '')}/sign/csc/callback`;

export const stateHash = (state: string) => createHash('sha256').update(state).digest('hex');

/** The operator's provider of that name (the first when none is named); AUTHORITY_NOT_AVAILABLE without any. */
export function cscProvider(deps: Pick<Deps, 'config'>, name?: string): CscProvider {
  const { providers, trustedDer } = deps.config.csc;
  if (providers.length === 0 || trustedDer.length === 0) {
    throw new AppError(
      'AUTHORITY_NOT_AVAILABLE',
      'remote signing is not configured on this server (SELLO_CSC_PROVIDERS, SELLO_CSC_TRUST_PEM)',
      {
        authority: 'CSC',
      },
    );
  }
  const found = name === undefined ? providers[0] : providers.find((p) => p.name === name);
  if (!found) {
    throw new AppError('INVALID_INPUT', `provider: expected one of ${providers.map((p) => p.name).join(', ')}`, { field: 'provider' });
  }
  return found;
}

export async function startCscSignature(
  deps: Deps,
  o: { token: string; provider?: string; language?: 'es' | 'en'; fieldValues?: FieldValues },
): Promise<{ authorize_url: string; provider: string; expires_at: string }> {
  const s = await openSession(deps.db, o.token);
  requireCscSigner(s.signer.authority);
  const provider = cscProvider(deps, o.provider);
  requireSignable(s);
  requireIdentityVerified(s);
  const language = legendLanguage(s.document.workflow, o.language, deps.config.defaultLanguage);
  // Checked before the signer leaves for the provider: a refused value is shown on the page, not
  // after the authorization. The revision is prepared on return, with these values checked again.
  const fields = await fieldsOfSigner(deps.db, s.signer.id);
  refuseUnknownFields(o.fieldValues, new Set(fields.map((f) => f.field_id)));
  checkFieldValues(fields, o.fieldValues, { now: deps.clock.now(), timeZone: await accountTimeZone(deps.db, s.document.account_id) });
  return leaveForProvider(deps, { signerRowId: s.signer.id, provider, language, pageLanguage: o.language, fieldValues: o.fieldValues });
}

/**
 * The same from a set link: one authorization at the provider for every document of the set still
 * waiting for this signer; the return signs them all and goes back to the set's page.
 */
export async function startSetCscSignature(
  deps: Deps,
  o: { token: string; provider?: string; language?: 'es' | 'en'; fieldValues?: FieldValues },
): Promise<{ authorize_url: string; provider: string; expires_at: string }> {
  const s = await openSetSession(deps.db, o.token);
  requireCscSigner(s.signer.authority);
  const provider = cscProvider(deps, o.provider);
  const open = await requireSetActionable(deps.db, s);
  // Verified once for the whole set before anything is signed, as signSet asks (never half a set).
  for (const row of open) {
    requireIdentityStatusVerified(row.identity_status);
  }
  await checkSetFieldValues(deps, { accountId: s.set.account_id, rows: open, values: o.fieldValues });
  const language = legendLanguage(s.set.workflow, o.language, deps.config.defaultLanguage);
  return leaveForProvider(deps, {
    fieldValues: o.fieldValues,
    signerRowId: open[0].id,
    provider,
    language,
    pageLanguage: o.language,
    setTokenSealed: deps.secrets.seal(o.token),
  });
}

function requireCscSigner(authority: string): void {
  if (authority !== 'CSC') {
    throw new AppError('INVALID_STATE', `remote signing is for signers of the CSC authority; this signer's is ${authority}`);
  }
}

/**
 * Keeps what the return needs and answers the provider's authorization page: of scope `service`,
 * or, for the second step of a credential of authMode `oauth2code`, of scope `credential` for that
 * credential and the hashes prepared (CSC API v2 §8.4.2), with what was prepared kept sealed for the
 * second return.
 */
export async function leaveForProvider(
  deps: Deps,
  o: {
    signerRowId: string;
    provider: CscProvider;
    language: 'es' | 'en';
    pageLanguage?: 'es' | 'en';
    setTokenSealed?: Buffer;
    fieldValues?: FieldValues;
    credential?: { id: string; hashes: Buffer[]; hashAlgorithmOID: string; prepared: Buffer; preparedUntil: Date };
  },
): Promise<{ authorize_url: string; provider: string; expires_at: string }> {
  const { provider } = o;
  const now = deps.clock.now();
  const state = randomBytes(32).toString('base64url');
  const verifier = randomBytes(48).toString('base64url');
  // A second step lasts no longer than what it signs was prepared for: a later return is refused
  // before the provider is asked to sign, not after its one-time authorization was spent.
  const expiresAt = new Date(
    Math.min(now.getTime() + AUTHORIZE_MINUTES * 60_000, o.credential?.preparedUntil.getTime() ?? Number.POSITIVE_INFINITY),
  );
  await dropExpiredCscAuthorizations(deps.db, o.signerRowId, now);
  await insertCscAuthorization(deps.db, {
    state_hash: stateHash(state),
    signer_row_id: o.signerRowId,
    provider: provider.name,
    code_verifier_sealed: deps.secrets.seal(verifier),
    language: o.language,
    created_at: now,
    expires_at: expiresAt,
    set_token_sealed: o.setTokenSealed ?? null,
    field_values: o.fieldValues === undefined ? null : JSON.stringify(o.fieldValues),
    prepared_sealed: o.credential?.prepared ?? null,
  });
  // The hashes, base64url and comma-separated, bind the access token to what the signer signs.
  const scope: Record<string, string> = o.credential
    ? {
        scope: 'credential',
        credentialID: o.credential.id,
        numSignatures: String(o.credential.hashes.length),
        hashes: o.credential.hashes.map((h) => h.toString('base64url')).join(','),
        hashAlgorithmOID: o.credential.hashAlgorithmOID,
      }
    : { scope: 'service' };
  const url = new URL(`${provider.baseUrl}/oauth2/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: provider.clientId,
    redirect_uri: redirectUriOf(deps, provider),
    ...scope,
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    lang: o.pageLanguage ?? 'es',
  }).toString();
  return { authorize_url: url.toString(), provider: provider.name, expires_at: expiresAt.toISOString() };
}
