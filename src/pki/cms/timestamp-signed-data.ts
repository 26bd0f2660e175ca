// The CMS SignedData of the service's own time-stamp tokens (RFC 3161 §2.4.2): over a TSTInfo,
// signed with SHA-256, carrying the signed attributes contentType, messageDigest and ESS
// signing-certificate-v2 (RFC 5816 §2.2.1, which lets SHA-256 identify the TSA certificate where
// RFC 3161's ESSCertID would need SHA-1). Written by hand with asn1js: the signed attributes must
// be a DER SET (sorted), because verifiers such as OpenSSL re-encode them before checking the
// signature.
import * as asn1js from 'asn1js';
import type { LoadedPki } from '../material-types.js';
import { derElement, derSetOf, digest, explicit, toArrayBuffer } from '../primitives.js';
import { signWith } from '../service-key.js';
import { type HashName, OID, oidByHash } from './oids.js';
import { timeStampTokenAttributes } from './signed-attributes.js';

// RFC 5754 §2: the parameters of SHA-2 AlgorithmIdentifiers are absent.
export const digestAlgorithm = (hash: HashName) =>
  new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: oidByHash(hash) })] });

const der = (block: asn1js.BaseBlock) => new Uint8Array(block.toBER(false));

/** The TSA's SignerInfo over the TSTInfo `eContent`. */
async function tsaSignerInfo(pki: LoadedPki, eContent: Uint8Array): Promise<asn1js.Sequence> {
  const tsaCert = pki.tsa.certificate;
  const signedAttributes = timeStampTokenAttributes(tsaCert, pki.tsa.certificateDer, digest('SHA-256', eContent)).map((a) => a.toSchema());
  // The signature covers the DER SET OF; the SignerInfo carries the same content as [0] IMPLICIT.
  const { algorithm, signature } = await signWith(pki.tsa.key, der(derSetOf(signedAttributes)));
  return new asn1js.Sequence({
    value: [
      new asn1js.Integer({ value: 1 }), // issuerAndSerialNumber sid
      new asn1js.Sequence({ value: [tsaCert.issuer.toSchema(), tsaCert.serialNumber] }),
      digestAlgorithm('SHA-256'),
      derSetOf(signedAttributes, { tagClass: 3, tagNumber: 0 }),
      algorithm.toSchema(),
      new asn1js.OctetString({ valueHex: toArrayBuffer(signature) }),
    ],
  });
}

/**
 * A TimeStampToken (ContentInfo DER) over the TSTInfo `eContent`. `certReq` (RFC 3161 §2.4.1): the
 * TSA certificate and the CAs below the root go with it.
 */
export async function timeStampTokenSignedData(pki: LoadedPki, eContent: Uint8Array, certReq: boolean): Promise<Buffer> {
  // The certificates and the token go in as the bytes they are (no parse and re-encoding per
  // token), so the outer structures are joined from encodings: tag 0x30 SEQUENCE, 0xa0 [0].
  const signedData: Uint8Array[] = [
    der(new asn1js.Integer({ value: 3 })), // RFC 5652 §5.1: eContentType is not id-data
    der(new asn1js.Set({ value: [digestAlgorithm('SHA-256')] })),
    der(
      new asn1js.Sequence({
        value: [
          new asn1js.ObjectIdentifier({ value: OID.tstInfo }),
          explicit(0, new asn1js.OctetString({ valueHex: toArrayBuffer(eContent) })),
        ],
      }),
    ),
  ];
  if (certReq) {
    // The TSA certificate MUST be included when certReq is true (§2.4.1); the issuing CA and any
    // intermediates go with it so a verifier only needs the root. [0] IMPLICIT SET OF, DER-sorted.
    const certs = [pki.tsa.certificateDer, ...pki.chainDer.slice(0, -1)].map((c) => Buffer.from(c)).sort(Buffer.compare);
    signedData.push(derElement(0xa0, certs));
  }
  signedData.push(der(new asn1js.Set({ value: [await tsaSignerInfo(pki, eContent)] })));
  return derElement(0x30, [der(new asn1js.ObjectIdentifier({ value: OID.signedData })), derElement(0xa0, [derElement(0x30, signedData)])]);
}
