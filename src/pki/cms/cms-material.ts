// The certificates a CMS signature carries, read without judging them: what the long-term
// validation data of a signature must cover (EN 319 142-1 §5.4: the DSS holds the certificates of
// the signer's path and of every time stamp's path). The bytes are taken as encoded in the
// signature, not re-encoded, so the DSS holds the very certificates the signature names.
import * as asn1js from 'asn1js';
import { cachedCertificate } from '../certificate-cache.js';
import { PkiError } from '../errors.js';
import { toArrayBuffer } from '../primitives.js';
import { OID } from './oids.js';

export interface CmsMaterial {
  /** The certificate whose key made the (first) signature. */
  signerCertificateDer: Buffer;
  /** Every certificate in the SignedData's `certificates` field, as encoded there. */
  certificatesDer: Buffer[];
  /** The signature time-stamp tokens (unsigned attribute), each a ContentInfo, as encoded there. */
  timeStampTokensDer: Buffer[];
}

const raw = (block: asn1js.BaseBlock) => Buffer.from(block.valueBeforeDecodeView);
const children = (b: asn1js.BaseBlock | undefined): asn1js.BaseBlock[] =>
  b instanceof asn1js.Constructed ? (b.valueBlock.value as asn1js.BaseBlock[]) : [];
const isContext = (b: asn1js.BaseBlock, n: number) => b.idBlock.tagClass === 3 && b.idBlock.tagNumber === n;

function bad(message: string): never {
  throw new PkiError('bad_der', message);
}

/**
 * Reads a DER ContentInfo of SignedData; trailing zeros (the padding of a PDF /Contents value) are
 * ignored. Throws PkiError('bad_der') when it is not one or names no signer certificate it carries.
 * The structure is walked with asn1js alone (RFC 5652 §5.1, §5.3): pkijs's schema matching of a
 * whole SignedData costs several milliseconds, and only the certificates and one SignerInfo's
 * sid and unsigned attributes are needed.
 */
export function readCmsMaterial(cms: Uint8Array): CmsMaterial {
  const parsed = asn1js.fromBER(toArrayBuffer(cms));
  if (parsed.offset === -1 || !(parsed.result instanceof asn1js.Sequence)) {
    bad('the signature is not DER CMS');
  }
  const [type, explicitContent] = children(parsed.result);
  if (!(type instanceof asn1js.ObjectIdentifier) || type.valueBlock.toString() !== OID.signedData || !explicitContent) {
    bad('the signature is not a CMS SignedData');
  }
  // SignedData ::= SEQUENCE { version, digestAlgorithms, encapContentInfo, certificates [0] IMPLICIT
  //   CertificateSet OPTIONAL, crls [1] IMPLICIT OPTIONAL, signerInfos SET OF SignerInfo }
  const fields = children(children(explicitContent)[0]);
  const certificatesDer = children(fields.find((f) => isContext(f, 0)))
    .filter((c) => c instanceof asn1js.Sequence)
    .map(raw);
  const signerInfos = fields[fields.length - 1];
  // SignerInfo ::= SEQUENCE { version, sid, digestAlgorithm, signedAttrs [0] IMPLICIT OPTIONAL,
  //   signatureAlgorithm, signature, unsignedAttrs [1] IMPLICIT OPTIONAL }
  const signerInfo = children(signerInfos)[0];
  const sid = children(signerInfo)[1];
  if (!sid) {
    bad('the signature has no SignerInfo');
  }
  const signerCertificateDer = certificatesDer.find((der) => matchesSid(der, sid));
  if (!signerCertificateDer) {
    bad('the signature does not carry its signer certificate');
  }
  const timeStampTokensDer: Buffer[] = [];
  const unsigned = children(signerInfo).find((f, i) => i > 1 && isContext(f, 1));
  for (const attr of children(unsigned)) {
    const [attrType, values] = children(attr);
    if (attrType instanceof asn1js.ObjectIdentifier && attrType.valueBlock.toString() === OID.signatureTimeStampToken) {
      timeStampTokensDer.push(...children(values).map(raw));
    }
  }
  return { signerCertificateDer, certificatesDer, timeStampTokensDer };
}

/** RFC 5652 §5.3: sid is IssuerAndSerialNumber, or subjectKeyIdentifier [0]. */
function matchesSid(der: Buffer, sid: asn1js.BaseBlock): boolean {
  const parsed = asn1js.fromBER(toArrayBuffer(der)).result;
  // TBSCertificate ::= SEQUENCE { version [0] EXPLICIT DEFAULT v1, serialNumber, signature, issuer, ... }
  const tbs = children(children(parsed)[0]);
  const offset = tbs[0] && isContext(tbs[0], 0) ? 1 : 0;
  const serial = tbs[offset];
  const issuer = tbs[offset + 2];
  if (!serial || !issuer) {
    return false;
  }
  if (sid instanceof asn1js.Sequence) {
    const [sidIssuer, sidSerial] = children(sid);
    return !!sidIssuer && !!sidSerial && raw(sidIssuer).equals(raw(issuer)) && raw(sidSerial).equals(raw(serial));
  }
  if (isContext(sid, 0) && sid instanceof asn1js.Primitive) {
    const ski = cachedCertificate(der).pkijs.extensions?.find((e) => e.extnID === OID.subjectKeyIdentifier);
    const value = ski ? asn1js.fromBER(ski.extnValue.valueBlock.valueHexView).result : undefined;
    return (
      value instanceof asn1js.OctetString && Buffer.from(value.valueBlock.valueHexView).equals(Buffer.from(sid.valueBlock.valueHexView))
    );
  }
  return false;
}
