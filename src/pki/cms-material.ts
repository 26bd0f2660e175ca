// The certificates a CMS signature carries, read without judging them: what the long-term
// validation data of a signature must cover (EN 319 142-1 §5.4: the DSS holds the certificates of
// the signer's path and of every time stamp's path). The bytes are taken as encoded in the
// signature, not re-encoded, so the DSS holds the very certificates the signature names.
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { PkiError } from './errors.js';
import { toArrayBuffer } from './primitives.js';

/** id-aa-signatureTimeStampToken (RFC 3161 appendix A). */
const SIGNATURE_TIME_STAMP = '1.2.840.113549.1.9.16.2.14';
const SIGNED_DATA = '1.2.840.113549.1.7.2';

export interface CmsMaterial {
  /** The certificate whose key made the (first) signature. */
  signerCertificateDer: Buffer;
  /** Every certificate in the SignedData's `certificates` field, as encoded there. */
  certificatesDer: Buffer[];
  /** The signature time-stamp tokens (unsigned attribute), each a ContentInfo, as encoded there. */
  timeStampTokensDer: Buffer[];
}

const raw = (block: asn1js.BaseBlock) => Buffer.from(block.valueBeforeDecodeView);

/**
 * Reads a DER ContentInfo of SignedData; trailing zeros (the padding of a PDF /Contents value) are
 * ignored. Throws PkiError('bad_der') when it is not one or names no signer certificate it carries.
 */
export function readCmsMaterial(cms: Uint8Array): CmsMaterial {
  const parsed = asn1js.fromBER(toArrayBuffer(cms));
  if (parsed.offset === -1 || !(parsed.result instanceof asn1js.Sequence)) {
    throw new PkiError('bad_der', 'the signature is not DER CMS');
  }
  let signedData: pkijs.SignedData;
  let content: asn1js.BaseBlock;
  try {
    const info = new pkijs.ContentInfo({ schema: parsed.result });
    if (info.contentType !== SIGNED_DATA) {
      throw new Error('not SignedData');
    }
    content = info.content as asn1js.BaseBlock;
    signedData = new pkijs.SignedData({ schema: content });
  } catch {
    throw new PkiError('bad_der', 'the signature is not a CMS SignedData');
  }
  // SignedData ::= SEQUENCE { version, digestAlgorithms, encapContentInfo, certificates [0] IMPLICIT ..., ... }
  const fields = content instanceof asn1js.Sequence ? content.valueBlock.value : [];
  const certSet = fields.find((f) => f.idBlock.tagClass === 3 && f.idBlock.tagNumber === 0) as asn1js.Constructed | undefined;
  const certificatesDer = (certSet?.valueBlock.value ?? []).filter((c) => c instanceof asn1js.Sequence).map(raw);

  const signerInfo = signedData.signerInfos[0];
  if (!signerInfo) {
    throw new PkiError('bad_der', 'the signature has no SignerInfo');
  }
  const signerCertificateDer = certificatesDer.find((der) => matchesSid(der, signerInfo.sid));
  if (!signerCertificateDer) {
    throw new PkiError('bad_der', 'the signature does not carry its signer certificate');
  }
  const timeStampTokensDer: Buffer[] = [];
  for (const attr of signerInfo.unsignedAttrs?.attributes ?? []) {
    if (attr.type === SIGNATURE_TIME_STAMP) {
      timeStampTokensDer.push(...attr.values.map((v: asn1js.BaseBlock) => raw(v)));
    }
  }
  return { signerCertificateDer, certificatesDer, timeStampTokensDer };
}

function matchesSid(der: Buffer, sid: unknown): boolean {
  let cert: pkijs.Certificate;
  try {
    cert = pkijs.Certificate.fromBER(toArrayBuffer(der));
  } catch {
    return false;
  }
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    return cert.issuer.isEqual(sid.issuer) && cert.serialNumber.isEqual(sid.serialNumber);
  }
  // subjectKeyIdentifier [0]: compare with the certificate's SKI extension.
  if (sid instanceof asn1js.Primitive || sid instanceof asn1js.OctetString) {
    const ski = cert.extensions?.find((e) => e.extnID === '2.5.29.14');
    const value = ski ? asn1js.fromBER(ski.extnValue.valueBlock.valueHexView).result : undefined;
    return (
      value instanceof asn1js.OctetString && Buffer.from(value.valueBlock.valueHexView).equals(Buffer.from(sid.valueBlock.valueHexView))
    );
  }
  return false;
}
