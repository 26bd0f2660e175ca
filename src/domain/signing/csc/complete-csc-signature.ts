// GET /sign/csc/callback: the signer comes back from their provider's authorization page with a
// code. The service takes the authorization the state names (once) and exchanges the code with its
// PKCE verifier for an access token.
// First return (scope `service`): lists the signer's credentials, takes the one whose certificate
// names the sticker's signer (as for CERT), prepares the signature with that certificate
// (own-certificate/) and computes the hash of the signed attributes (SHA-256, or the hash of an
// ECDSA key's curve). A credential the provider authorizes by its own means (authMode `implicit`)
// is signed at once: credentials/authorize binds a SAD to the hashes, signatures/signHash signs them.
// A credential of authMode `oauth2code` (a SCAL2 credential's, CSC API v2 §8.4.2) signs only with
// the signer's own authorization of those hashes: the signer is sent to the provider again with
// scope `credential`, the credential and the hashes, and what was prepared is kept sealed.
// Second return (scope `credential`): signatures/signHash with that access token, no SAD.
// Either way each signature is finished with the value the provider returned. From a set link, the
// same for every document of the set still waiting for the signer: each prepared, their hashes
// authorized and signed in one call, each finished in turn. Then the signer is sent back to their
// signing page, which shows the document signed.
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
import type { CscProvider } from '../../../config.js';
import { cscProvider, leaveForProvider, redirectUriOf, stateHash } from './start-csc-signature.js';
import { openSetSession, requireSetActionable, rowToken } from '../../sets/set-signing-session.js';
import type { FieldValues } from '../../../schemas/signer-fields.js';

const invalid = (message: string) => new AppError('CSC_AUTHORIZATION_INVALID', message);

/** What the second return of an `oauth2code` credential signs: kept sealed between the two steps. */
interface Prepared {
  credentialId: string;
  algorithm: ReturnType<typeof signAlgorithmFor>;
  /** In the order of the hashes the signer authorized. */
  documents: { signerRowId: string; preparationId: string; hash: string }[];
}

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
  const authority = cscAuthority(provider.name);
  if (auth.prepared_sealed) {
    // The second return: the access token is the signer's authorization of exactly these hashes.
    const prepared = JSON.parse(deps.secrets.open(auth.prepared_sealed)) as Prepared;
    await signAndFinish(deps, provider, authority, {
      accessToken,
      credentialId: prepared.credentialId,
      algorithm: prepared.algorithm,
      documents: await Promise.all(
        prepared.documents.map(async (d) => {
          const rowToken = await sealedTokenOf(deps.db, d.signerRowId);
          if (!rowToken) {
            throw invalid('this signer can no longer sign through their link');
          }
          return { token: deps.secrets.open(rowToken), preparationId: d.preparationId, hash: Buffer.from(d.hash, 'base64') };
        }),
      ),
      ip: q.ip,
    });
    return { redirect: pageUrl };
  }
  const rows = setToken ? await openSetRows(deps, setToken) : [{ token, signerRowId: auth.signer_row_id }];
  const s = await openSession(deps.db, rows[0].token);
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
  if (credential.authMode === 'explicit') {
    throw new AppError(
      'CSC_PROVIDER_ERROR',
      `${provider.name}: credential ${credential.id} is authorized with a PIN or one-time password (authMode explicit), which this service does not collect`,
      { provider: provider.name, step: 'credentials/info' },
    );
  }
  const language = auth.language === 'en' ? 'en' : 'es';
  // Every document prepared first, so that one authorization and one signHash cover all their hashes.
  // The values were checked before the signer left (across the set's documents for a set link);
  // each revision checks its own document's again as it is prepared.
  const fieldValues = (auth.field_values ?? undefined) as FieldValues | undefined;
  const prepared = [];
  for (const { token: t, signerRowId } of rows) {
    prepared.push({
      token: t,
      signerRowId,
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
  if (credential.authMode === 'oauth2code') {
    // Back to the provider: the signer authorizes this credential for these hashes only.
    const kept: Prepared = {
      credentialId: credential.id,
      algorithm,
      documents: prepared.map((p, i) => ({ signerRowId: p.signerRowId, preparationId: p.id, hash: hashes[i].toString('base64') })),
    };
    const next = await leaveForProvider(deps, {
      signerRowId: auth.signer_row_id,
      provider,
      language,
      pageLanguage: language,
      setTokenSealed: auth.set_token_sealed ?? undefined,
      fieldValues,
      credential: {
        id: credential.id,
        hashes,
        hashAlgorithmOID: algorithm.hashAlgorithmOID,
        prepared: deps.secrets.seal(JSON.stringify(kept)),
        preparedUntil: new Date(Math.min(...prepared.map((p) => p.expiresAt.getTime()))),
      },
    });
    return { redirect: next.authorize_url };
  }
  const sad = await authorizeCredential(provider, {
    accessToken,
    credentialId: credential.id,
    hashes,
    hashAlgorithmOID: algorithm.hashAlgorithmOID,
  });
  await signAndFinish(deps, provider, authority, {
    accessToken,
    credentialId: credential.id,
    algorithm,
    sad,
    documents: prepared.map((p, i) => ({ token: p.token, preparationId: p.id, hash: hashes[i] })),
    ip: q.ip,
  });
  return { redirect: pageUrl };
}

/** One signHash for every document's hash, then each signature finished in turn. */
async function signAndFinish(
  deps: Deps,
  provider: CscProvider,
  authority: ReturnType<typeof cscAuthority>,
  o: {
    accessToken: string;
    credentialId: string;
    algorithm: ReturnType<typeof signAlgorithmFor>;
    sad?: string;
    documents: { token: string; preparationId: string; hash: Buffer }[];
    ip?: string;
  },
): Promise<void> {
  const signatures = await signHash(provider, {
    accessToken: o.accessToken,
    credentialId: o.credentialId,
    hashes: o.documents.map((d) => d.hash),
    algorithm: o.algorithm,
    sad: o.sad,
  });
  for (const [i, d] of o.documents.entries()) {
    await finishOwnSignature(deps, { token: d.token, preparationId: d.preparationId, signature: signatures[i], ip: o.ip }, authority);
  }
}

/** The per-document tokens and rows of the set signer's documents still waiting for their signature. */
async function openSetRows(deps: Deps, setToken: string): Promise<{ token: string; signerRowId: string }[]> {
  const set = await openSetSession(deps.db, setToken);
  return (await requireSetActionable(deps.db, set)).map((row) => ({ token: rowToken(deps, row), signerRowId: row.id }));
}
