// GET /sign/csc/callback: the signer comes back from their provider's authorization page with a
// code. The service takes the authorization the state names (once), exchanges the code with its
// PKCE verifier for an access token, lists the signer's credentials, takes the one whose
// certificate names the sticker's signer (as for CERT), prepares the signature with that
// certificate (own-certificate/), asks signatures/signHash for the hash of the signed attributes
// (SHA-256, or the hash of an ECDSA key's curve), with the SAD of credentials/authorize bound to that
// hash when the credential is SCAL2, and finishes the signature with the value the provider returned.
// From a set link, the same for every document of the set still waiting for the signer: each
// prepared, their hashes authorized (SCAL2) and signed in one call, each finished in turn. Then the signer is sent back to
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
import { nodeHashName } from '../../../pki/cms/oids.js';
import { authorizeCredential, exchangeCode, listCredentials, signAlgorithmFor, signHash } from './csc-client.js';
import { cscProvider, redirectUriOf, stateHash } from './start-csc-signature.js';
import { openSetSession, requireSetActionable, rowToken } from '../../sets/set-signing-session.js';
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
  // A set link's authorization signs every document of the set still waiting for this signer.
  const setToken = auth.set_token_sealed ? deps.secrets.open(auth.set_token_sealed) : undefined;
  const token = deps.secrets.open(sealed);
  const pageUrl = `${deps.config.publicUrl}/sign/${setToken ? `set/${setToken}` : token}`;
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
  const tokens = setToken ? await openSetRowTokens(deps, setToken) : [token];
  const s = await openSession(deps.db, tokens[0]);
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
  // Every document prepared first, so that one SAD (SCAL2) and one signHash cover all their hashes.
  // The values were checked before the signer left (across the set's documents for a set link);
  // each revision checks its own document's again as it is prepared.
  const fieldValues = (auth.field_values ?? undefined) as FieldValues | undefined;
  const prepared = [];
  for (const t of tokens) {
    prepared.push({
      token: t,
      ...(await prepareOwnSignature(
        deps,
        { token: t, certificate: credential.chainDer[0], language, fieldValues, unknownFieldsChecked: setToken !== undefined },
        authority,
      )),
    });
  }
  const scheme = prepared[0].scheme;
  const hashes = prepared.map((p) => createHash(nodeHashName(scheme.hash)).update(p.signedAttributes).digest());
  const algorithm = signAlgorithmFor(credential, scheme);
  const sad =
    credential.scal === '2'
      ? await authorizeCredential(provider, {
          accessToken,
          credentialId: credential.id,
          hashes,
          hashAlgorithmOID: algorithm.hashAlgorithmOID,
        })
      : undefined;
  const signatures = await signHash(provider, { accessToken, credentialId: credential.id, hashes, algorithm, sad });
  for (const [i, p] of prepared.entries()) {
    await finishOwnSignature(deps, { token: p.token, preparationId: p.id, signature: signatures[i], ip: q.ip }, authority);
  }
  return { redirect: pageUrl };
}

/** The per-document tokens of the set signer's documents still waiting for their signature. */
async function openSetRowTokens(deps: Deps, setToken: string): Promise<string[]> {
  const set = await openSetSession(deps.db, setToken);
  return (await requireSetActionable(deps.db, set)).map((row) => rowToken(deps, row));
}
