// Parsed certificates for the verification paths, kept by the SHA-256 of their bytes.
// A signature checks the same certificates several times: the signer's chain, the time-stamp
// token's certificates, the trusted roots, at every signature. asn1js takes over half a millisecond
// per certificate and node's X509Certificate a tenth of that, so both views are kept, a few dozen
// certificates at most. Callers only read them (path validation and CMS encoding do not modify a
// certificate), so one object serves every signature.
import { X509Certificate, createHash } from 'node:crypto';
import * as pkijs from 'pkijs';
import { PkiError } from './errors.js';
import { toArrayBuffer } from './primitives.js';

const MAX = 64;

/** One certificate, parsed once, in the three forms the checks use. */
export interface CachedCertificate {
  der: Buffer;
  x509: X509Certificate;
  pkijs: pkijs.Certificate;
  notBefore: Date;
  notAfter: Date;
  /** The subject as "C=.., O=.., CN=..". */
  subject: string;
}

const byDigest = new Map<string, CachedCertificate>();

/** The certificate these DER bytes encode; throws PkiError('bad_der') when they do not parse. */
export function cachedCertificate(der: Uint8Array): CachedCertificate {
  const key = createHash('sha256').update(der).digest('base64');
  let entry = byDigest.get(key);
  if (entry) {
    byDigest.delete(key); // least recently used goes first
  } else {
    const bytes = Buffer.from(der);
    let x509: X509Certificate;
    let parsed: pkijs.Certificate;
    try {
      x509 = new X509Certificate(bytes);
      parsed = pkijs.Certificate.fromBER(toArrayBuffer(bytes));
    } catch {
      throw new PkiError('bad_der', 'not a DER X.509 certificate');
    }
    entry = {
      der: bytes,
      x509,
      pkijs: parsed,
      notBefore: parsed.notBefore.value,
      notAfter: parsed.notAfter.value,
      subject: x509.subject.split('\n').join(', '),
    };
    derOf.set(parsed, bytes);
    if (byDigest.size >= MAX) {
      byDigest.delete(byDigest.keys().next().value!);
    }
  }
  byDigest.set(key, entry);
  return entry;
}

/** The certificate, or undefined when the bytes are not one (an extra certificate is then no candidate). */
export function cachedCertificateOrUndefined(der: Uint8Array): CachedCertificate | undefined {
  try {
    return cachedCertificate(der);
  } catch {
    return undefined;
  }
}

// pkijs keeps no bytes for a parsed certificate: toSchema().toBER() parses the TBS again and
// re-encodes the whole tree, about a third of a millisecond each, so each object's DER is kept.
const derOf = new WeakMap<pkijs.Certificate, Buffer>();

/** The DER of a parsed certificate (its original bytes when it came from cachedCertificate). */
export function encodedCertificate(cert: pkijs.Certificate): Buffer {
  let der = derOf.get(cert);
  if (!der) {
    der = Buffer.from(cert.toSchema().toBER(false));
    derOf.set(cert, der);
  }
  return der;
}
