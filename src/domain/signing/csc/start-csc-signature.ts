// POST /sign/api/{token}/csc/authorize: a CSC signer leaves for their provider's authorization page.
// The service answers the page's address (OAuth 2.0 authorization code, RFC 6749 §4.1, with PKCE
// S256, RFC 7636, and the CSC API v2's scope `credential`) and keeps what the return needs: the
// state (hashed: it travels in URLs and logs), the PKCE verifier (sealed), the signer, the provider.
// The state is unguessable and used once, so a return cannot be forged or replayed for another
// signer (RFC 6749 §10.12).
import { createHash, randomBytes } from 'node:crypto';
import type { CscProvider } from '../../../config.js';
import { dropExpiredCscAuthorizations, insertCscAuthorization } from '../../../store/csc-repo.js';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { requireIdentityVerified } from '../../identity/require-identity.js';
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
  if (s.signer.authority !== 'CSC') {
    throw new AppError('INVALID_STATE', `remote signing is for signers of the CSC authority; this signer's is ${s.signer.authority}`);
  }
  const provider = cscProvider(deps, o.provider);
  requireSignable(s);
  requireIdentityVerified(s);
  const now = deps.clock.now();
  // Checked before the signer leaves for the provider: a refused value is shown on the page, not
  // after the authorization. The revision is prepared on return, with these values checked again.
  const fields = await fieldsOfSigner(deps.db, s.signer.id);
  refuseUnknownFields(o.fieldValues, new Set(fields.map((f) => f.field_id)));
  checkFieldValues(fields, o.fieldValues, { now, timeZone: await accountTimeZone(deps.db, s.document.account_id) });
  const state = randomBytes(32).toString('base64url');
  const verifier = randomBytes(48).toString('base64url');
  const expiresAt = new Date(now.getTime() + AUTHORIZE_MINUTES * 60_000);
  await dropExpiredCscAuthorizations(deps.db, s.signer.id, now);
  await insertCscAuthorization(deps.db, {
    state_hash: stateHash(state),
    signer_row_id: s.signer.id,
    provider: provider.name,
    code_verifier_sealed: deps.secrets.seal(verifier),
    language: legendLanguage(s.document.workflow, o.language, deps.config.defaultLanguage),
    created_at: now,
    expires_at: expiresAt,
    field_values: o.fieldValues === undefined ? null : JSON.stringify(o.fieldValues),
  });
  const url = new URL(`${provider.baseUrl}/oauth2/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: provider.clientId,
    redirect_uri: redirectUriOf(deps, provider),
    scope: 'credential',
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    lang: o.language ?? 'es',
  }).toString();
  return { authorize_url: url.toString(), provider: provider.name, expires_at: expiresAt.toISOString() };
}
