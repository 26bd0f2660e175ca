// GET /sign/csc/callback: the signer comes back from their provider's authorization page with a
// code. The service takes the authorization the state names (once), exchanges the code with its
// PKCE verifier for an access token, lists the signer's credentials, takes the one whose
// certificate names the sticker's signer (as for CERT), prepares the signature with that
// certificate (own-certificate/), asks signatures/signHash for the SHA-256 of the signed attributes,
// and finishes the signature with the value the provider returned. Then the signer is sent back to
// their signing page, which shows the document signed.
import { createHash } from 'node:crypto';
import { sealedTokenOf, takeCscAuthorization } from '../../../store/csc-repo.js';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { readOwnCertificate } from '../../../pki/own-certificate.js';
import { openSession } from '../signing-session.js';
import { namesSigner } from '../cert/check-cert-certificate.js';
import { finishOwnSignature } from '../own-certificate/finish-own-signature.js';
import { prepareOwnSignature } from '../own-certificate/prepare-own-signature.js';
import { cscAuthority } from './csc-authority.js';
import { exchangeCode, listCredentials, signHash } from './csc-client.js';
import { cscProvider, redirectUriOf, stateHash } from './start-csc-signature.js';

import type { FieldValues } from '../../../schemas/signer-fields.js';

const invalid = (message: string) => new AppError('CSC_AUTHORIZATION_INVALID', message);

/** The signer's page to go back to once signed. */
export async function completeCscSignature(
  deps: Deps,
  q: { code?: string; state?: string; error?: string; ip?: string },
): Promise<{ redirect: string }> {
  if (!q.state) {
    throw invalid('state: required; start again from your signing link');
  }
  const now = deps.clock.now();
  const auth = await deps.db.transaction().execute((trx) => takeCscAuthorization(trx, stateHash(q.state!), now));
  if (!auth || now > auth.expires_at) {
    throw invalid('this authorization is unknown, already used or expired: start again from your signing link');
  }
  const sealed = await sealedTokenOf(deps.db, auth.signer_row_id);
  if (!sealed) {
    throw invalid('this signer can no longer sign through their link');
  }
  const token = deps.secrets.open(sealed);
  const pageUrl = `${deps.config.publicUrl}/sign/${token}`;
  if (q.error || !q.code) {
    // The signer declined at the provider (RFC 6749 §4.1.2.1): back to the page, nothing signed.
    return { redirect: pageUrl };
  }
  const provider = cscProvider(deps, auth.provider);
  const accessToken = await exchangeCode(provider, {
    code: q.code,
    verifier: deps.secrets.open(auth.code_verifier_sealed),
    redirectUri: redirectUriOf(deps, provider),
  });
  const s = await openSession(deps.db, token);
  const credentials = await listCredentials(provider, accessToken);
  const credential = credentials.find((c) => {
    try {
      return namesSigner(readOwnCertificate(c.chainDer[0]), s.signer) === undefined;
    } catch {
      return false;
    }
  });
  if (!credential) {
    throw new AppError('CERTIFICATE_REFUSED', `none of your credentials at ${provider.name} has a certificate for ${s.signer.data}`, {
      reason: 'name_mismatch',
    });
  }
  const authority = cscAuthority(provider.name);
  const language = auth.language === 'en' ? 'en' : 'es';
  const fieldValues = (auth.field_values ?? undefined) as FieldValues | undefined;
  const prepared = await prepareOwnSignature(deps, { token, certificate: credential.chainDer[0], language, fieldValues }, authority);
  const hash = createHash('sha256').update(prepared.signedAttributes).digest();
  const signature = await signHash(provider, { accessToken, credentialId: credential.id, hash });
  await finishOwnSignature(deps, { token, preparationId: prepared.id, signature, ip: q.ip }, authority);
  return { redirect: pageUrl };
}
