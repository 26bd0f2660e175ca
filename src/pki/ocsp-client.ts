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
import { OID, RSA_SIGNATURE_HASH, hashByOid, nodeHashName } from './cms/oids.js';

/** CertID hash algorithms this reads (RFC 6960 §4.1.1: SHA-1 in practice, SHA-256 from some). */
const CERT_ID_HASHES = new Set<string>([OID.sha1, OID.sha256]);

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
    const delegated = c.checkIssued(issuer) && c.verify(issuer.publicKey) && (c.keyUsage ?? []).includes(OID.kpOcspSigning);
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
  if (response.responseBytes?.responseType !== OID.ocspBasic) {
    bad('the OCSP answer is not a BasicOCSPResponse');
  }
  const basic = pkijs.BasicOCSPResponse.fromBER(toArrayBuffer(response.responseBytes!.response.valueBlock.valueHexView));
  const issuer = new X509Certificate(opts.issuerDer);
  const signatureHash =
    RSA_SIGNATURE_HASH[basic.signatureAlgorithm.algorithmId] ?? bad('the OCSP answer is signed with an unknown algorithm');
  const hash = nodeHashName(signatureHash);
  const tbs = Buffer.from(basic.tbsResponseData.tbsView);
  const signature = Buffer.from(basic.signature.valueBlock.valueHexView);
  if (!responderKey(basic, issuer, opts.at).some((c) => verify(hash, tbs, c.publicKey, signature))) {
    bad('the OCSP answer is not signed by the issuer or a responder it delegated');
  }
  const cert = pkijs.Certificate.fromBER(toArrayBuffer(opts.certificateDer));
  const issuerCert = pkijs.Certificate.fromBER(toArrayBuffer(opts.issuerDer));
  for (const single of basic.tbsResponseData.responses) {
    const oid = single.certID.hashAlgorithm.algorithmId;
    const algorithm = CERT_ID_HASHES.has(oid) ? hashByOid(oid) : undefined;
    if (!algorithm) {
      continue;
    }
    const digest = (bytes: Uint8Array) => createHash(nodeHashName(algorithm)).update(bytes).digest();
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
