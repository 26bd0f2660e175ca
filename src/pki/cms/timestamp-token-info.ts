// What a TimeStampToken says about itself (RFC 3161 §2.4.2 TSTInfo, and the certificates it
// carries), read without judging it: a validation reports these even for a token that fails its
// checks. Whether the token is genuine is verifyTimeStampToken's (timestamp-token.ts) to say.
import type * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { cachedCertificateOrUndefined } from '../certificate-cache.js';
import { integerToSerialHex, toArrayBuffer } from '../primitives.js';
import { type HashName, OID, hashByOid } from './oids.js';

export interface TimeStampTokenInfo {
  /** The imprint's algorithm; undefined when it is not one this service knows. */
  imprintAlgorithm: HashName | undefined;
  imprint: Buffer;
  genTime: Date;
  serialNumber: string;
  policyOid: string;
  /** The certificates the token carries (DER), the TSA's among them when it was asked for. */
  certificatesDer: Buffer[];
  /** Subject of the certificate the signer identifier names, when the token carries it. */
  tsaSubject: string | undefined;
}

/** Reads a token (DER ContentInfo); undefined when it is not a SignedData over a TSTInfo. */
export function readTimeStampTokenInfo(tokenDer: Uint8Array): TimeStampTokenInfo | undefined {
  try {
    const contentInfo = pkijs.ContentInfo.fromBER(toArrayBuffer(tokenDer));
    if (contentInfo.contentType !== OID.signedData) {
      return undefined;
    }
    const signedData = new pkijs.SignedData({ schema: contentInfo.content });
    const eContent = signedData.encapContentInfo.eContent;
    if (signedData.encapContentInfo.eContentType !== OID.tstInfo || !eContent) {
      return undefined;
    }
    const tstInfo = pkijs.TSTInfo.fromBER(eContent.getValue());
    const certificates = (signedData.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
    const sid = signedData.signerInfos[0]?.sid as unknown;
    const signer =
      sid instanceof pkijs.IssuerAndSerialNumber
        ? certificates.find((c) => c.issuer.isEqual(sid.issuer) && c.serialNumber.isEqual(sid.serialNumber))
        : undefined;
    const certificatesDer = certificates.map((c) => Buffer.from(c.toSchema().toBER(false)));
    return {
      imprintAlgorithm: hashByOid(tstInfo.messageImprint.hashAlgorithm.algorithmId),
      imprint: Buffer.from(tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView),
      genTime: tstInfo.genTime,
      serialNumber: integerToSerialHex(tstInfo.serialNumber as asn1js.Integer),
      policyOid: tstInfo.policy,
      certificatesDer,
      tsaSubject: signer ? cachedCertificateOrUndefined(Buffer.from(signer.toSchema().toBER(false)))?.subject : undefined,
    };
  } catch {
    return undefined;
  }
}
