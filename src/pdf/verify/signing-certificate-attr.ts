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

/** The first ESSCertID(v2) of the attribute must hash to `certificateDer`; null when it does. */
export function signingCertificateProblem(attrs: pkijs.Attribute[], certificateDer: Uint8Array, required: boolean): Problem | null {
  const v2 = attrs.filter((a) => a.type === SIGNING_CERTIFICATE_V2);
  const v1 = attrs.filter((a) => a.type === SIGNING_CERTIFICATE);
  if (v2.length + v1.length === 0) {
    return required ? problem('the signing-certificate-v2 attribute that a CAdES signature requires is missing') : null;
  }
  const attr = v2[0] ?? v1[0];
  if (v2.length + v1.length > 1 || attr.values.length !== 1) {
    return problem('the signing-certificate attribute is repeated');
  }
  const value = attr.values[0] as asn1js.BaseBlock;
  const certs = value instanceof asn1js.Sequence ? value.valueBlock.value[0] : undefined;
  const first = certs instanceof asn1js.Sequence ? certs.valueBlock.value[0] : undefined;
  if (!(first instanceof asn1js.Sequence)) {
    return problem('the signing-certificate attribute is malformed');
  }
  let items = first.valueBlock.value;
  let hash = v2.length > 0 ? 'sha256' : 'sha1'; // RFC 5035: hashAlgorithm DEFAULT id-sha256
  if (v2.length > 0 && items[0] instanceof asn1js.Sequence) {
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
