// Certificate path validation (RFC 5280 §6) with pkijs, against roots the caller trusts. Used for
// the signer's chain and for the TSA's. Revocation is not checked here: a PAdES B-T signature
// carries none (EN 319 142-1 §6.3, B-T), and the LTV step that embeds it is a separate revision.
import { createHash } from 'node:crypto';
import * as pkijs from 'pkijs';

/** A copy backed by a plain ArrayBuffer, which the WebCrypto/pkijs typings insist on. */
export function own(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes);
}

// A signature parses the same certificates several times: the signer's chain for the CMS and
// again as intermediates for the time-stamp check, the trusted roots for both, and the service's
// issuing CA, root and TSA certificates at every signature. asn1js takes over half a millisecond
// per certificate, so parsed certificates are kept, keyed by the SHA-256 of their bytes, a few dozen
// at most. Callers only read them (pkijs's path validation and CMS encoding do not modify a
// certificate), so one object can serve every signature.
const PARSED_MAX = 64;
const parsed = new Map<string, pkijs.Certificate>();

/** The certificate these DER bytes encode; the same object for the same bytes while it is cached. */
export function parseCertificate(der: Uint8Array): pkijs.Certificate {
  const key = createHash('sha256').update(der).digest('base64');
  let cert = parsed.get(key);
  if (cert) {
    parsed.delete(key); // least recently used goes first
  } else {
    cert = pkijs.Certificate.fromBER(own(der));
    if (parsed.size >= PARSED_MAX) {
      parsed.delete(parsed.keys().next().value!);
    }
  }
  parsed.set(key, cert);
  return cert;
}

// pkijs keeps no bytes for a parsed certificate: toSchema().toBER() parses the TBS again and
// re-encodes the whole tree, about a third of a millisecond for one of ours. Comparing every
// candidate with the leaf and the roots that way cost a signature some thirty encodings (about
// 9 ms), so each object's DER is computed once. Parsed certificates are never modified here, so
// the cached bytes stay true.
const derCache = new WeakMap<pkijs.Certificate, Buffer>();

/** The certificate's DER, as toSchema().toBER(false) gives it, computed once per object. */
export function certificateDer(cert: pkijs.Certificate): Buffer {
  let der = derCache.get(cert);
  if (!der) {
    der = Buffer.from(cert.toSchema().toBER(false));
    derCache.set(cert, der);
  }
  return der;
}

function sameCert(a: pkijs.Certificate, b: pkijs.Certificate): boolean {
  return a === b || certificateDer(a).equals(certificateDer(b));
}

/**
 * Whether `leaf` chains, through any of `candidates`, to one of `roots`, every certificate valid
 * at `at`. Returns the failure reason, or null when the path is good.
 */
export async function chainProblem(
  leaf: pkijs.Certificate,
  candidates: pkijs.Certificate[],
  roots: pkijs.Certificate[],
  at: Date,
): Promise<string | null> {
  if (roots.length === 0) {
    return 'no trusted roots were given';
  }
  // pkijs takes the last of `certs` as the end entity, and drops duplicates of trusted roots. A
  // certificate given twice (in the token and among the extra certificates) is kept once: it adds
  // no path, only work for the path builder.
  const intermediates = candidates.filter(
    (c, i) => !sameCert(c, leaf) && !roots.some((r) => sameCert(r, c)) && candidates.findIndex((d) => sameCert(d, c)) === i,
  );
  const engine = new pkijs.CertificateChainValidationEngine({
    trustedCerts: roots,
    certs: [...intermediates, leaf],
    checkDate: at,
  });
  try {
    const result = await engine.verify();
    return result.result ? null : (result.resultMessage ?? 'the certificate path is not valid');
  } catch (err) {
    const e = err as { resultMessage?: string; message?: string };
    return e.resultMessage ?? e.message ?? String(err);
  }
}

/** The critical-ness and OIDs of the extended key usage extension, if present. */
export function extendedKeyUsage(cert: pkijs.Certificate): { critical: boolean; purposes: string[] } | null {
  const ext = cert.extensions?.find((e) => e.extnID === '2.5.29.37');
  if (!ext) {
    return null;
  }
  const parsed = ext.parsedValue as pkijs.ExtKeyUsage | undefined;
  return { critical: ext.critical, purposes: parsed?.keyPurposes ?? [] };
}
