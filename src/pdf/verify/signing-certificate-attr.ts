// The ESS signing-certificate attribute of a PDF signature (RFC 2634 §5.4, RFC 5035 §3): the
// signed hash of the certificate the signer meant. Without it a signature can be presented with
// another certificate for the same key (a substitution, RFC 5035 §1), so CAdES requires it
// (EN 319 122-1 §5.2.2.3); for the older adbe.pkcs7.detached it is checked when present.
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import type * as pkijs from 'pkijs';

const SIGNING_CERTIFICATE = '1.2.840.113549.1.9.16.2.12';
const SIGNING_CERTIFICATE_V2 = '1.2.840.113549.1.9.16.2.47';
const HASH_BY_OID: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

type Problem = { rule: 'signing-certificate-mismatch'; message: string };
const problem = (message: string): Problem => ({ rule: 'signing-certificate-mismatch', message });

/** The first ESSCertID(v2) of one attribute value must hash to `certificateDer`; null when it does. */
function namesCertificate(value: asn1js.BaseBlock, v2: boolean, certificateDer: Uint8Array): Problem | null {
  const certs = value instanceof asn1js.Sequence ? value.valueBlock.value[0] : undefined;
  const first = certs instanceof asn1js.Sequence ? certs.valueBlock.value[0] : undefined;
  if (!(first instanceof asn1js.Sequence)) {
    return problem('the signing-certificate attribute is malformed');
  }
  let items = first.valueBlock.value;
  let hash = v2 ? 'sha256' : 'sha1'; // RFC 5035: hashAlgorithm DEFAULT id-sha256
  if (v2 && items[0] instanceof asn1js.Sequence) {
    const oid = items[0].valueBlock.value[0];
    hash = oid instanceof asn1js.ObjectIdentifier ? (HASH_BY_OID[oid.valueBlock.toString()] ?? '') : '';
    items = items.slice(1);
  }
  const certHash = items[0];
  if (!hash || !(certHash instanceof asn1js.OctetString)) {
    return problem('the signing-certificate attribute names an unknown hash');
  }
  const actual = createHash(hash).update(certificateDer).digest();
  return actual.equals(Buffer.from(certHash.valueBlock.valueHexView))
    ? null
    : problem('the signing-certificate attribute names another certificate than the one that signed');
}

/**
 * The signing-certificate(-v2) attributes among the signed attributes must name `certificateDer`;
 * null when they do. Each kind appears at most once with one value (RFC 5652 §11). Some signers
 * write both, the SHA-1 one for older readers: each must then name the same certificate.
 */
export function signingCertificateProblem(attrs: pkijs.Attribute[], certificateDer: Uint8Array, required: boolean): Problem | null {
  const v2 = attrs.filter((a) => a.type === SIGNING_CERTIFICATE_V2);
  const v1 = attrs.filter((a) => a.type === SIGNING_CERTIFICATE);
  if (v2.length + v1.length === 0) {
    return required ? problem('the signing-certificate-v2 attribute that a CAdES signature requires is missing') : null;
  }
  if (v2.length > 1 || v1.length > 1 || [...v2, ...v1].some((a) => a.values.length !== 1)) {
    return problem('the signing-certificate attribute is repeated');
  }
  for (const [attr, isV2] of [
    [v2[0], true],
    [v1[0], false],
  ] as const) {
    const found = attr ? namesCertificate(attr.values[0] as asn1js.BaseBlock, isV2, certificateDer) : null;
    if (found) {
      return found;
    }
  }
  return null;
}
