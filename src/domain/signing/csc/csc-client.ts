// The Cloud Signature Consortium API v2 as this service calls it on a signer's behalf: the token
// request of the authorization code grant (RFC 6749 §4.1.3, with the PKCE verifier of RFC 7636),
// credentials/list, credentials/info (the credential's certificate chain) and signatures/signHash.
// The provider's address is the operator's setting, not a client's, so it does not go through the
// client URL guard; every call has a time limit and a size limit.
import type { CscProvider } from '../../../config.js';
import { AppError } from '../../errors.js';
import { OID } from '../../../pki/cms/oids.js';

const TIMEOUT_MS = 15_000;
const MAX_ANSWER_BYTES = 256 * 1024;
/** id-sha256 (RFC 5754): the hash algorithm of the signed attributes' hash. */
export const SHA256_OID = OID.sha256;
/** sha256WithRSAEncryption: how the credential's RSA key signs that hash. */
const SHA256_WITH_RSA_OID = OID.sha256WithRsa;

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

/** The signer's credentials, each with its certificate chain (leaf first, DER). */
export async function listCredentials(provider: CscProvider, accessToken: string): Promise<{ id: string; chainDer: Buffer[] }[]> {
  const list = await api(provider, accessToken, 'credentials/list', 'credentials/list', { maxResults: 20 });
  const ids = Array.isArray(list.credentialIDs) ? list.credentialIDs.filter((x): x is string => typeof x === 'string') : [];
  const out: { id: string; chainDer: Buffer[] }[] = [];
  for (const id of ids.slice(0, 20)) {
    const info = await api(provider, accessToken, 'credentials/info', 'credentials/info', { credentialID: id, certificates: 'chain' });
    const cert = (info.cert ?? {}) as { status?: unknown; certificates?: unknown };
    const certificates = Array.isArray(cert.certificates) ? cert.certificates.filter((c): c is string => typeof c === 'string') : [];
    if (certificates.length > 0 && (cert.status === undefined || cert.status === 'valid')) {
      out.push({ id, chainDer: certificates.map((c) => Buffer.from(c, 'base64')) });
    }
  }
  return out;
}

/** The credential's signature of one SHA-256 hash (RSASSA-PKCS1-v1_5). */
export async function signHash(provider: CscProvider, o: { accessToken: string; credentialId: string; hash: Buffer }): Promise<Buffer> {
  const json = await api(provider, o.accessToken, 'signatures/signHash', 'signatures/signHash', {
    credentialID: o.credentialId,
    hashes: [o.hash.toString('base64')],
    hashAlgorithmOID: SHA256_OID,
    signAlgo: SHA256_WITH_RSA_OID,
  });
  const value = Array.isArray(json.signatures) ? json.signatures[0] : undefined;
  if (typeof value !== 'string' || value === '') {
    throw failed(provider, 'signatures/signHash', 'no signature');
  }
  return Buffer.from(value, 'base64');
}
