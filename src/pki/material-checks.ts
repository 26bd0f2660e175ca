// Consistency checks on PKI material before it is used: the failure an operator should see at
// start-up ("the TSA key does not match its certificate") rather than at the first signature, as
// an unverifiable PDF. Dates are not checked here: the clock is the caller's (DESIGN 6).
import { X509Certificate, createPrivateKey } from 'node:crypto';
import * as asn1js from 'asn1js';
import { PkiError } from './errors.js';
import type { KeyedCertificate, PkiMaterial } from './material-types.js';
import { cachedCertificate } from './certificate-cache.js';
import { OID } from './cms/oids.js';

function x509(der: Buffer, what: string): X509Certificate {
  try {
    return new X509Certificate(der);
  } catch {
    throw new PkiError('bad_material', `the ${what} certificate does not parse`);
  }
}

/** True when `issuer` signed `subject` (names chain and the signature verifies). */
export function isIssuedBy(subject: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return subject.checkIssued(issuer) && subject.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

function checkKey(keyed: { certificateDer: Buffer; privateKeyPkcs8?: Buffer }, what: string): void {
  if (!keyed.privateKeyPkcs8) {
    return;
  }
  let matches = false;
  try {
    const key = createPrivateKey({ key: keyed.privateKeyPkcs8, format: 'der', type: 'pkcs8' });
    matches = x509(keyed.certificateDer, what).checkPrivateKey(key);
  } catch {
    throw new PkiError('bad_material', `the ${what} private key is not a readable PKCS#8 key`);
  }
  if (!matches) {
    throw new PkiError('bad_material', `the ${what} private key does not match its certificate`);
  }
}

/** The extendedKeyUsage of a certificate: its purposes and whether the extension is critical. */
export function extendedKeyUsage(der: Uint8Array): { purposes: string[]; critical: boolean } | undefined {
  // Through the cache: every time stamp checks its TSA certificate here, and a parse is half a millisecond.
  const extension = cachedCertificate(der).pkijs.extensions?.find((e) => e.extnID === OID.extKeyUsage);
  if (!extension) {
    return undefined;
  }
  const parsed = asn1js.fromBER(extension.extnValue.valueBlock.valueHexView);
  if (parsed.offset === -1 || !(parsed.result instanceof asn1js.Sequence)) {
    return { purposes: [], critical: extension.critical };
  }
  const purposes = parsed.result.valueBlock.value
    .filter((item): item is asn1js.ObjectIdentifier => item instanceof asn1js.ObjectIdentifier)
    .map((item) => item.valueBlock.toString());
  return { purposes, critical: extension.critical };
}

/** RFC 3161 §2.3: exactly one EKU extension, critical, with id-kp-timeStamping as its only purpose. */
export function isTimeStampingCertificate(der: Uint8Array): boolean {
  const eku = extendedKeyUsage(der);
  return eku?.critical === true && eku.purposes.length === 1 && eku.purposes[0] === OID.kpTimeStamping;
}

function checkIssuedByIssuing(keyed: KeyedCertificate, issuing: X509Certificate, what: string): X509Certificate {
  const cert = x509(keyed.certificateDer, what);
  if (!isIssuedBy(cert, issuing)) {
    throw new PkiError('bad_material', `the ${what} certificate is not issued by the issuing CA`);
  }
  return cert;
}

/** Throws PkiError('bad_material') at the first inconsistency. */
export function checkMaterial(material: PkiMaterial): void {
  const root = x509(material.root.certificateDer, 'root');
  if (!root.ca || !isIssuedBy(root, root)) {
    throw new PkiError('bad_material', 'the root certificate is not a self-signed CA certificate');
  }
  const issuing = x509(material.issuing.certificateDer, 'issuing CA');
  if (!issuing.ca) {
    throw new PkiError('bad_material', 'the issuing certificate is not a CA certificate (basicConstraints cA)');
  }
  // issuing -> intermediates (nearest first) -> root
  const path = [issuing, ...material.intermediatesDer.map((der, i) => x509(der, `intermediate #${i + 1}`)), root];
  for (let i = 0; i + 1 < path.length; i += 1) {
    if (!isIssuedBy(path[i], path[i + 1])) {
      throw new PkiError('bad_material', `the chain breaks at ${path[i].subject.replace(/\n/g, ', ')}`);
    }
  }
  checkKey(material.root, 'root');
  checkKey(material.issuing, 'issuing CA');
  checkKey(material.tsa, 'TSA');
  checkKey(material.ocsp, 'OCSP responder');
  checkIssuedByIssuing(material.tsa, issuing, 'TSA');
  if (!isTimeStampingCertificate(material.tsa.certificateDer)) {
    throw new PkiError(
      'bad_material',
      'the TSA certificate needs a critical extendedKeyUsage with only id-kp-timeStamping (RFC 3161 §2.3)',
    );
  }
  checkIssuedByIssuing(material.ocsp, issuing, 'OCSP responder');
  if (!extendedKeyUsage(material.ocsp.certificateDer)?.purposes.includes(OID.kpOcspSigning)) {
    throw new PkiError('bad_material', 'the OCSP responder certificate needs id-kp-OCSPSigning (RFC 6960 §4.2.2.2)');
  }
}
