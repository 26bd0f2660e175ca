// Certification path building and the checks of RFC 5280 §6.1 that matter for a time-stamp or
// signer certificate: signatures, names, validity at the given instants, cA and pathLenConstraint
// of every issuer (keyCertSign is checked by OpenSSL's X509_check_issued under checkIssued).
// Revocation is not checked here: that needs the network or stored CRL/OCSP, the caller's part.
import { X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import { PkiError } from './errors.js';
import { isIssuedBy } from './material-checks.js';
import { OID, parseCertificate } from './primitives.js';

export interface ChainOptions {
  /** Trust anchors; a path must end at one of these (compared byte for byte). */
  trustedRootsDer: readonly Uint8Array[];
  /** Certificates that may serve as intermediates, untrusted by themselves. */
  untrustedDer: readonly Uint8Array[];
  /** Every certificate of the path must be valid at each of these instants. */
  at: readonly Date[];
}

const MAX_DEPTH = 8;

interface Node {
  der: Buffer;
  x509: X509Certificate;
}

function node(der: Uint8Array): Node | undefined {
  try {
    return { der: Buffer.from(der), x509: new X509Certificate(Buffer.from(der)) };
  } catch {
    return undefined; // an unparsable extra certificate is simply not a candidate
  }
}

function validAt(der: Buffer, instants: readonly Date[]): boolean {
  const certificate = parseCertificate(der);
  const from = certificate.notBefore.value.getTime();
  const to = certificate.notAfter.value.getTime();
  return instants.every((t) => t.getTime() >= from && t.getTime() <= to);
}

/** pathLenConstraint of a CA certificate, or undefined when unlimited. */
function pathLen(der: Buffer): number | undefined {
  const extension = parseCertificate(der).extensions?.find((e) => e.extnID === OID.basicConstraints);
  const parsed = extension ? asn1js.fromBER(extension.extnValue.valueBlock.valueHexView) : undefined;
  const integer =
    parsed?.result instanceof asn1js.Sequence ? parsed.result.valueBlock.value.find((b) => b instanceof asn1js.Integer) : undefined;
  return integer instanceof asn1js.Integer ? integer.valueBlock.valueDec : undefined;
}

/**
 * The path [leaf, ..., trusted root] for `leafDer`, or a PkiError('timestamp_invalid') saying
 * why there is none. Depth-first over candidate issuers, so a cross-signed or renewed CA with the
 * same name does not stop the search at the first candidate.
 */
export function buildTrustedChain(leafDer: Uint8Array, options: ChainOptions): Buffer[] {
  const leaf = node(leafDer);
  if (!leaf) {
    throw new PkiError('timestamp_invalid', 'the signer certificate does not parse');
  }
  const trusted = options.trustedRootsDer.map(node).filter((n): n is Node => n !== undefined);
  const pool = options.untrustedDer.map(node).filter((n): n is Node => n !== undefined);
  let reason = 'no path to a trusted root';

  const extend = (path: Node[]): Node[] | undefined => {
    const current = path[path.length - 1];
    if (!validAt(current.der, options.at)) {
      reason = `${current.x509.subject.replace(/\n/g, ', ')} is not valid at the time checked`;
      return undefined;
    }
    if (trusted.some((t) => t.der.equals(current.der))) {
      return path;
    }
    if (path.length > MAX_DEPTH) {
      return undefined;
    }
    for (const candidate of [...trusted, ...pool]) {
      if (path.some((p) => p.der.equals(candidate.der)) || !isIssuedBy(current.x509, candidate.x509)) {
        continue;
      }
      if (!candidate.x509.ca) {
        reason = `${candidate.x509.subject.replace(/\n/g, ', ')} is not a CA`;
        continue;
      }
      // RFC 5280 §4.2.1.9: at most pathLen non-self-issued intermediates may follow this CA.
      const limit = pathLen(candidate.der);
      if (limit !== undefined && path.length - 1 > limit) {
        reason = `the path exceeds the pathLenConstraint of ${candidate.x509.subject.replace(/\n/g, ', ')}`;
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
  if (!path) {
    throw new PkiError('timestamp_invalid', reason);
  }
  return path.map((n) => n.der);
}
