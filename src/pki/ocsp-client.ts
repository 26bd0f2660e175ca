// Reading an OCSP responder's answer about one certificate (RFC 6960), for certificates this
// service did not issue (the SAT's e.firma). The answer counts only when it is signed by the
// certificate's issuer or by a responder the issuer delegated (id-kp-OCSPSigning, §4.2.2.2), and
// is about this certificate (CertID: issuer name and key hashes, serial). Pure: the caller fetches.
import { X509Certificate, createHash, verify } from 'node:crypto';
import type * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { PkiError } from './errors.js';
import type { OcspCertStatus } from './ocsp.js';
import { toArrayBuffer } from './primitives.js';

const OID_BASIC = '1.3.6.1.5.5.7.48.1.1';
const OID_OCSP_SIGNING = '1.3.6.1.5.5.7.3.9';
const HASH_OF_SIGNATURE: Record<string, string> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
};
const HASH_OF_CERT_ID: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
};

const bad = (message: string): never => {
  throw new PkiError('bad_der', message);
};

/** The responder's certificate: the issuer itself, or one it issued for OCSP signing. */
function responderKey(basic: pkijs.BasicOCSPResponse, issuer: X509Certificate, at: Date) {
  const candidates = [issuer, ...(basic.certs ?? []).map((c) => new X509Certificate(Buffer.from(c.toSchema().toBER(false))))];
  return candidates.filter((c) => {
    if (c === issuer) {
      return true;
    }
    const delegated = c.checkIssued(issuer) && c.verify(issuer.publicKey) && (c.keyUsage ?? []).includes(OID_OCSP_SIGNING);
    return delegated && new Date(c.validFrom) <= at && at <= new Date(c.validTo);
  });
}

/**
 * The status the responder gives `certificateDer` (issued by `issuerDer`). Throws PkiError when the
 * answer is not a successful, signed, matching BasicOCSPResponse.
 */
export function readOcspResponse(der: Uint8Array, opts: { certificateDer: Uint8Array; issuerDer: Uint8Array; at: Date }): OcspCertStatus {
  let response: pkijs.OCSPResponse;
  try {
    response = pkijs.OCSPResponse.fromBER(toArrayBuffer(der));
  } catch {
    return bad('the OCSP answer does not parse');
  }
  if (response.responseStatus.valueBlock.valueDec !== 0) {
    bad(`the OCSP responder answered status ${response.responseStatus.valueBlock.valueDec}`);
  }
  if (response.responseBytes?.responseType !== OID_BASIC) {
    bad('the OCSP answer is not a BasicOCSPResponse');
  }
  const basic = pkijs.BasicOCSPResponse.fromBER(toArrayBuffer(response.responseBytes!.response.valueBlock.valueHexView));
  const issuer = new X509Certificate(opts.issuerDer);
  const hash = HASH_OF_SIGNATURE[basic.signatureAlgorithm.algorithmId] ?? bad('the OCSP answer is signed with an unknown algorithm');
  const tbs = Buffer.from(basic.tbsResponseData.tbsView);
  const signature = Buffer.from(basic.signature.valueBlock.valueHexView);
  if (!responderKey(basic, issuer, opts.at).some((c) => verify(hash, tbs, c.publicKey, signature))) {
    bad('the OCSP answer is not signed by the issuer or a responder it delegated');
  }
  const cert = pkijs.Certificate.fromBER(toArrayBuffer(opts.certificateDer));
  const issuerCert = pkijs.Certificate.fromBER(toArrayBuffer(opts.issuerDer));
  for (const single of basic.tbsResponseData.responses) {
    const algorithm = HASH_OF_CERT_ID[single.certID.hashAlgorithm.algorithmId];
    if (!algorithm) {
      continue;
    }
    const digest = (bytes: Uint8Array) => createHash(algorithm).update(bytes).digest();
    const matches =
      single.certID.serialNumber.isEqual(cert.serialNumber) &&
      digest(new Uint8Array(issuerCert.subject.toSchema().toBER(false))).equals(
        Buffer.from(single.certID.issuerNameHash.valueBlock.valueHexView),
      ) &&
      digest(issuerCert.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView).equals(
        Buffer.from(single.certID.issuerKeyHash.valueBlock.valueHexView),
      );
    if (!matches) {
      continue;
    }
    const status = single.certStatus as asn1js.BaseBlock;
    // CertStatus ::= CHOICE { good [0] NULL, revoked [1] RevokedInfo, unknown [2] NULL }
    switch (status.idBlock.tagNumber) {
      case 0:
        return { status: 'good' };
      case 1: {
        const info = (status as asn1js.Constructed).valueBlock.value[0] as asn1js.GeneralizedTime | undefined;
        return { status: 'revoked', revokedAt: info?.toDate?.() ?? opts.at };
      }
      default:
        return { status: 'unknown' };
    }
  }
  return bad('the OCSP answer is not about this certificate');
}
