// The Cloud Signature Consortium API v2 as this service calls it on a signer's behalf: the token
// request of the authorization code grant (RFC 6749 §4.1.3, with the PKCE verifier of RFC 7636),
// credentials/list, credentials/info (the credential's certificate chain, its key's algorithms, its
// SCAL and authMode), credentials/authorize (the Signature Activation Data of a credential the
// provider authorizes by its own means, authMode `implicit`, bound to the hashes it will sign: CSC
// API v2 §11.6) and signatures/signHash (§11.9) with the signature algorithm the credential's key
// makes (RSA PKCS#1 v1.5 or PSS, ECDSA), under that SAD or under an access token of scope
// `credential` the signer granted for those very hashes (authMode `oauth2code`).
// The provider's address is the operator's setting, not a client's, so it does not go through the
// client URL guard; every call has a time limit and a size limit.
import type { CscProvider } from '../../../config.js';
import { AppError } from '../../errors.js';
import { type ExternalScheme, pssParamsDer } from '../../../pki/cms/index.js';
import { OID, oidByHash } from '../../../pki/cms/oids.js';

const TIMEOUT_MS = 15_000;
const MAX_ANSWER_BYTES = 256 * 1024;

/** A credential of the signer at the provider, as credentials/info describes it. */
export interface CscCredential {
  id: string;
  /** Leaf first, DER. */
  chainDer: Buffer[];
  /** key/algo: the OIDs of the algorithms the key signs with (an empty list says nothing). */
  algorithms: string[];
  /** Sole Control Assurance Level: "2" signs only hashes the signer authorized. */
  scal: '1' | '2';
  /**
   * How the provider authorizes the credential (§11.5): `implicit` by its own means
   * (credentials/authorize with no PIN or OTP), `explicit` with a PIN or OTP the signing application
   * collects, `oauth2code` through an OAuth 2.0 authorization of scope `credential`.
   */
  authMode: 'implicit' | 'explicit' | 'oauth2code';
}

const AUTH_MODES = ['implicit', 'explicit', 'oauth2code'] as const;

/** What signHash is asked for: signAlgo (and its parameters) and the hash algorithm, for the key's scheme. */
export function signAlgorithmFor(credential: Pick<CscCredential, 'algorithms'>, scheme: ExternalScheme) {
  const hashAlgorithmOID = oidByHash(scheme.hash);
  const ECDSA: Record<ExternalScheme['hash'], string> = {
    'SHA-256': OID.ecdsaWithSha256,
    'SHA-384': OID.ecdsaWithSha384,
    'SHA-512': OID.ecdsaWithSha512,
  };
  if (scheme.name === 'ECDSA') {
    return { signAlgo: ECDSA[scheme.hash], hashAlgorithmOID };
  }
  const offers = (oid: string) => credential.algorithms.includes(oid);
  // An RSA key whose provider offers only PSS signs with PSS; the CMS says so (external-scheme.ts).
  const pssOnly = offers(OID.rsassaPss) && !offers(OID.sha256WithRsa) && !offers(OID.rsaEncryption);
  if (scheme.name === 'RSA-PSS' || pssOnly) {
    return { signAlgo: OID.rsassaPss, signAlgoParams: pssParamsDer(scheme.hash).toString('base64'), hashAlgorithmOID };
  }
  return { signAlgo: OID.sha256WithRsa, hashAlgorithmOID };
}

const failed = (provider: CscProvider, what: string, detail: string) =>
  new AppError('CSC_PROVIDER_ERROR', `${provider.name}: ${what} failed (${detail})`, { provider: provider.name, step: what });

async function call(provider: CscProvider, what: string, path: string, init: RequestInit): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(`${provider.baseUrl}/${path}`, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    throw failed(provider, what, `no answer: ${(err as Error).message}`);
  }
  const text = await res.text();
  if (text.length > MAX_ANSWER_BYTES) {
    throw failed(provider, what, 'answer too large');
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw failed(provider, what, `HTTP ${res.status}, not JSON`);
  }
  if (!res.ok) {
    const error = typeof json.error === 'string' ? json.error : `HTTP ${res.status}`;
    throw failed(provider, what, typeof json.error_description === 'string' ? `${error}: ${json.error_description}` : error);
  }
  return json;
}

const api = (provider: CscProvider, accessToken: string, what: string, path: string, body: unknown) =>
  call(provider, what, path, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The access token for the code the provider returned the signer with. */
export async function exchangeCode(provider: CscProvider, o: { code: string; verifier: string; redirectUri: string }): Promise<string> {
  const json = await call(provider, 'oauth2/token', 'oauth2/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: o.code,
      code_verifier: o.verifier,
      client_id: provider.clientId,
      client_secret: provider.clientSecret,
      redirect_uri: o.redirectUri,
    }).toString(),
  });
  if (typeof json.access_token !== 'string' || json.access_token === '') {
    throw failed(provider, 'oauth2/token', 'no access_token');
  }
  return json.access_token;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The signer's credentials, each with its certificate chain, its key's algorithms and its SCAL. */
export async function listCredentials(provider: CscProvider, accessToken: string): Promise<CscCredential[]> {
  const list = await api(provider, accessToken, 'credentials/list', 'credentials/list', { maxResults: 20 });
  const out: CscCredential[] = [];
  for (const id of strings(list.credentialIDs).slice(0, 20)) {
    const info = await api(provider, accessToken, 'credentials/info', 'credentials/info', { credentialID: id, certificates: 'chain' });
    const cert = (info.cert ?? {}) as { status?: unknown; certificates?: unknown };
    const certificates = strings(cert.certificates);
    if (certificates.length > 0 && (cert.status === undefined || cert.status === 'valid')) {
      out.push({
        id,
        chainDer: certificates.map((c) => Buffer.from(c, 'base64')),
        algorithms: strings((info.key as { algo?: unknown } | undefined)?.algo),
        scal: info.SCAL === '2' ? '2' : '1',
        // A provider that does not say is taken at its most demanding for a SCAL2 credential.
        authMode: AUTH_MODES.find((m) => m === info.authMode) ?? (info.SCAL === '2' ? 'oauth2code' : 'implicit'),
      });
    }
  }
  return out;
}

/**
 * credentials/authorize for one signature of each of `hashes` (§11.6): the SAD an access token of
 * scope `service` needs to sign, bound by the provider to those hashes, so what is signed is
 * exactly what was authorized. Only for a credential of authMode `implicit`: no PIN or OTP is sent.
 */
export async function authorizeCredential(
  provider: CscProvider,
  o: { accessToken: string; credentialId: string; hashes: Buffer[]; hashAlgorithmOID: string },
): Promise<string> {
  const json = await api(provider, o.accessToken, 'credentials/authorize', 'credentials/authorize', {
    credentialID: o.credentialId,
    numSignatures: o.hashes.length,
    hashes: o.hashes.map((h) => h.toString('base64')),
    hashAlgorithmOID: o.hashAlgorithmOID,
  });
  if (typeof json.SAD !== 'string' || json.SAD === '') {
    throw failed(provider, 'credentials/authorize', 'no SAD');
  }
  return json.SAD;
}

/** The credential's signatures of `hashes` under `algorithm` (signAlgorithmFor), in order, with the SAD when one was needed. */
export async function signHash(
  provider: CscProvider,
  o: { accessToken: string; credentialId: string; hashes: Buffer[]; algorithm: ReturnType<typeof signAlgorithmFor>; sad?: string },
): Promise<Buffer[]> {
  const json = await api(provider, o.accessToken, 'signatures/signHash', 'signatures/signHash', {
    credentialID: o.credentialId,
    ...(o.sad ? { SAD: o.sad } : {}),
    hashes: o.hashes.map((h) => h.toString('base64')),
    ...o.algorithm,
  });
  const values = strings(json.signatures).filter((v) => v !== '');
  if (values.length !== o.hashes.length) {
    throw failed(provider, 'signatures/signHash', `${values.length} signatures for ${o.hashes.length} hashes`);
  }
  return values.map((v) => Buffer.from(v, 'base64'));
}
