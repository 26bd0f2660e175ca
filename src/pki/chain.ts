// Certification path building and the checks of RFC 5280 §6.1 that matter for a signer or
// time-stamp certificate: signatures, names, validity at the given instants, cA and
// pathLenConstraint of every issuer (keyCertSign is checked by OpenSSL's X509_check_issued under
// checkIssued). The one path validator of the service: signing, time-stamp checks and reports all
// call it. Revocation is not checked here: that needs the network or stored CRL/OCSP, the caller's
// part (a PAdES B-T signature carries none, EN 319 142-1 §6.3).
import * as asn1js from 'asn1js';
import { type CachedCertificate, cachedCertificateOrUndefined } from './certificate-cache.js';
import { isIssuedBy } from './material-checks.js';
import { OID } from './cms/oids.js';

export interface ChainOptions {
  /** Trust anchors; a path must end at one of these (compared byte for byte). */
  trustedRootsDer: readonly Uint8Array[];
  /** Certificates that may serve as intermediates, untrusted by themselves. */
  untrustedDer: readonly Uint8Array[];
  /** Every certificate of the path must be valid at each of these instants. */
  at: readonly Date[];
}

/** Why there is no trusted path; `kind` lets callers word the cause for their users. */
export type ChainProblem =
  | { kind: 'not_yet_valid' | 'expired'; message: string; subject: string; notBefore: Date; notAfter: Date; at: Date }
  | { kind: 'unparsable' | 'no_roots' | 'not_a_ca' | 'path_too_long' | 'no_path'; message: string };

export type ChainResult = { ok: true; path: Buffer[] } | { ok: false; problem: ChainProblem };

const MAX_DEPTH = 8;

/**
 * Links already checked: whether `issuer` signed `subject` (names and signature, isIssuedBy), by
 * cache entry. An entry stands for exact bytes (cachedCertificate keys it by their SHA-256), so the
 * answer for a pair never changes and need not be computed twice: the service's own links (issuing
 * CA by the root, the TSA by the issuing CA) recur in every signature, twice in each (the signer's
 * path and the time stamp's). Validity dates, cA and pathLen are still checked on every path.
 */
const issuedBy = new WeakMap<CachedCertificate, WeakMap<CachedCertificate, boolean>>();

function linked(subject: CachedCertificate, issuer: CachedCertificate): boolean {
  let known = issuedBy.get(subject);
  if (!known) {
    known = new WeakMap();
    issuedBy.set(subject, known);
  }
  let answer = known.get(issuer);
  if (answer === undefined) {
    answer = isIssuedBy(subject.x509, issuer.x509);
    known.set(issuer, answer);
  }
  return answer;
}

/** pathLenConstraint by cache entry (exact bytes, so it never changes): read once, not at every path. */
const pathLens = new WeakMap<CachedCertificate, number | undefined>();

/** pathLenConstraint of a CA certificate, or undefined when unlimited. */
function pathLen(cert: CachedCertificate): number | undefined {
  if (!pathLens.has(cert)) {
    pathLens.set(cert, readPathLen(cert));
  }
  return pathLens.get(cert);
}

function readPathLen(cert: CachedCertificate): number | undefined {
  const extension = cert.pkijs.extensions?.find((e) => e.extnID === OID.basicConstraints);
  const parsed = extension ? asn1js.fromBER(extension.extnValue.valueBlock.valueHexView) : undefined;
  const integer =
    parsed?.result instanceof asn1js.Sequence ? parsed.result.valueBlock.value.find((b) => b instanceof asn1js.Integer) : undefined;
  return integer instanceof asn1js.Integer ? integer.valueBlock.valueDec : undefined;
}

function validity(cert: CachedCertificate, instants: readonly Date[]): ChainProblem | null {
  for (const at of instants) {
    const base = { subject: cert.subject, notBefore: cert.notBefore, notAfter: cert.notAfter, at };
    if (at.getTime() < cert.notBefore.getTime()) {
      const message = `${cert.subject} is not valid before ${cert.notBefore.toISOString()} (checked at ${at.toISOString()})`;
      return { kind: 'not_yet_valid', message, ...base };
    }
    if (at.getTime() > cert.notAfter.getTime()) {
      const message = `${cert.subject} is not valid after ${cert.notAfter.toISOString()} (checked at ${at.toISOString()})`;
      return { kind: 'expired', message, ...base };
    }
  }
  return null;
}

/**
 * The path [leaf, ..., trusted root] for `leafDer`, or the reason there is none. Depth-first over
 * candidate issuers, so a cross-signed or renewed CA with the same name does not stop the search at
 * the first candidate; the reason reported is the last dead end met.
 */
export function validateChain(leafDer: Uint8Array, options: ChainOptions): ChainResult {
  const leaf = cachedCertificateOrUndefined(leafDer);
  if (!leaf) {
    return { ok: false, problem: { kind: 'unparsable', message: 'the certificate does not parse' } };
  }
  const trusted = options.trustedRootsDer.map(cachedCertificateOrUndefined).filter((c): c is CachedCertificate => c !== undefined);
  if (trusted.length === 0) {
    return { ok: false, problem: { kind: 'no_roots', message: 'no trusted roots were given' } };
  }
  const pool = options.untrustedDer.map(cachedCertificateOrUndefined).filter((c): c is CachedCertificate => c !== undefined);
  let problem: ChainProblem = { kind: 'no_path', message: 'no path to a trusted root' };

  const extend = (path: CachedCertificate[]): CachedCertificate[] | undefined => {
    const current = path[path.length - 1];
    const invalid = validity(current, options.at);
    if (invalid) {
      problem = invalid;
      return undefined;
    }
    if (trusted.some((t) => t.der.equals(current.der))) {
      return path;
    }
    if (path.length > MAX_DEPTH) {
      return undefined;
    }
    for (const candidate of [...trusted, ...pool]) {
      if (path.some((p) => p.der.equals(candidate.der)) || !linked(current, candidate)) {
        continue;
      }
      if (!candidate.x509.ca) {
        problem = { kind: 'not_a_ca', message: `${candidate.subject} is not a CA` };
        continue;
      }
      // RFC 5280 §4.2.1.9: at most pathLen non-self-issued intermediates may follow this CA.
      const limit = pathLen(candidate);
      if (limit !== undefined && path.length - 1 > limit) {
        problem = { kind: 'path_too_long', message: `the path exceeds the pathLenConstraint of ${candidate.subject}` };
        continue;
      }
      const found = extend([...path, candidate]);
      if (found) {
        return found;
      }
    }
    return undefined;
  };

  const path = extend([leaf]);
  return path ? { ok: true, path: path.map((c) => c.der) } : { ok: false, problem };
}
