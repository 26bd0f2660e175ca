// OCSP responder (RFC 6960) for certificates of the issuing CA, answering through the delegated
// responder certificate (§4.2.2.2). The request is parsed with pkijs; the response is written by
// hand with asn1js so every field is the DER the RFC names (DEFAULT version omitted, byKey ID).
// The certificate database is a parameter (lookup), so is the clock (DESIGN 6).
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { LoadedPki } from './material-types.js';
import {
  assertSingleStructure,
  digest,
  explicit,
  generalizedTime,
  implicitPrimitive,
  integerToSerialHex,
  keyIdentifier,
  toArrayBuffer,
} from './primitives.js';
import { signWith } from './service-key.js';
import { OID, hashByOid, oidByHash, type HashName } from './cms/oids.js';

/** What the certificate store says about one serial number. */
export type OcspCertStatus = { status: 'good' } | { status: 'revoked'; revokedAt: Date; reason?: number } | { status: 'unknown' };

/** OCSPResponseStatus values (RFC 6960 §4.2.1) other than successful. */
export type OcspErrorStatus = 'malformedRequest' | 'internalError' | 'tryLater' | 'sigRequired' | 'unauthorized';
const ERROR_CODES: Record<OcspErrorStatus, number> = {
  malformedRequest: 1,
  internalError: 2,
  tryLater: 3,
  sigRequired: 5,
  unauthorized: 6,
};

export interface CreateOcspResponseOptions {
  now: Date;
  /** Status of a certificate of the issuing CA, by canonical serial hex (lowercase, even length). */
  lookup: (serialHex: string) => Promise<OcspCertStatus>;
  /** nextUpdate = now + this; default 60. Clients may cache the answer until then. */
  nextUpdateMinutes?: number;
}

/** Bounds on what a request may hold: inputs are bounded (DESIGN, security stance). */
const MAX_REQUEST_BYTES = 16 * 1024;
const MAX_CERT_IDS = 20;

/** An unsuccessful OCSPResponse: only the status, no responseBytes (RFC 6960 §4.2.1). */
export function createOcspErrorResponse(status: OcspErrorStatus): Buffer {
  const response = new asn1js.Sequence({ value: [new asn1js.Enumerated({ value: ERROR_CODES[status] })] });
  return Buffer.from(response.toBER(false));
}

/** The nonce octets of an id-pkix-ocsp-nonce extnValue: an OCTET STRING (RFC 6960 §4.4.1), or raw. */
function nonceOctets(extnValue: Uint8Array): Uint8Array {
  const parsed = asn1js.fromBER(toArrayBuffer(extnValue));
  if (parsed.offset === extnValue.byteLength && parsed.result instanceof asn1js.OctetString && !parsed.result.idBlock.isConstructed) {
    return parsed.result.valueBlock.valueHexView;
  }
  return extnValue; // some clients put the bare octets in extnValue; echoed as received either way
}

function singleResponse(certId: pkijs.CertID, status: OcspCertStatus, thisUpdate: Date, nextUpdate: Date): asn1js.Sequence {
  let certStatus: asn1js.BaseBlock;
  if (status.status === 'good') {
    certStatus = implicitPrimitive(0); // good [0] IMPLICIT NULL
  } else if (status.status === 'revoked') {
    const info: asn1js.BaseBlock[] = [generalizedTime(status.revokedAt)];
    if (status.reason !== undefined && status.reason !== 0) {
      info.push(explicit(0, new asn1js.Enumerated({ value: status.reason })));
    }
    certStatus = new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 1 }, value: info }); // revoked [1] IMPLICIT RevokedInfo
  } else {
    certStatus = implicitPrimitive(2); // unknown [2] IMPLICIT NULL
  }
  return new asn1js.Sequence({
    value: [certId.toSchema(), certStatus, generalizedTime(thisUpdate), explicit(0, generalizedTime(nextUpdate))],
  });
}

/** Does this CertID name our issuing CA? Hashes recomputed with the algorithm the client chose. */
function isOurIssuer(pki: LoadedPki, certId: pkijs.CertID): boolean {
  const hash = hashByOid(certId.hashAlgorithm.algorithmId);
  if (!hash) {
    return false;
  }
  const nameHash = digest(hash, new Uint8Array(pki.issuing.certificate.subject.toSchema().toBER(false)));
  const keyHash = digest(hash, pki.issuing.certificate.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView);
  return (
    nameHash.equals(Buffer.from(certId.issuerNameHash.valueBlock.valueHexView)) &&
    keyHash.equals(Buffer.from(certId.issuerKeyHash.valueBlock.valueHexView))
  );
}

/**
 * Answers an OCSPRequest (DER) with an OCSPResponse (DER). Garbage or an oversized request gets
 * malformedRequest; a CertID for any other issuer gets unauthorized (RFC 5019 §2.2.3: the
 * responder is not authoritative for it). Request signatures are ignored (§4.1.2 makes them
 * optional); errors thrown by `lookup` propagate, for the caller to log and answer internalError.
 */
export async function createOcspResponse(pki: LoadedPki, requestDer: Uint8Array, options: CreateOcspResponseOptions): Promise<Buffer> {
  if (requestDer.byteLength === 0 || requestDer.byteLength > MAX_REQUEST_BYTES) {
    return createOcspErrorResponse('malformedRequest');
  }
  let request: pkijs.OCSPRequest;
  try {
    assertSingleStructure(requestDer);
    request = pkijs.OCSPRequest.fromBER(toArrayBuffer(requestDer));
  } catch {
    return createOcspErrorResponse('malformedRequest');
  }
  const requests = request.tbsRequest.requestList;
  if (requests.length === 0 || requests.length > MAX_CERT_IDS) {
    return createOcspErrorResponse('malformedRequest');
  }
  let nonceExtension: pkijs.Extension | undefined;
  for (const extension of request.tbsRequest.requestExtensions ?? []) {
    if (extension.extnID === OID.ocspNonce) {
      const nonce = nonceOctets(extension.extnValue.valueBlock.valueHexView);
      // RFC 8954 §2.1: a nonce of 0 or more than 32 octets MUST be rejected with malformedRequest.
      if (nonce.byteLength === 0 || nonce.byteLength > 32) {
        return createOcspErrorResponse('malformedRequest');
      }
      nonceExtension = extension;
    } else if (extension.critical) {
      return createOcspErrorResponse('malformedRequest'); // a critical extension we cannot honour
    }
  }
  if (!requests.every((r) => isOurIssuer(pki, r.reqCert))) {
    return createOcspErrorResponse('unauthorized');
  }

  const now = options.now;
  const nextUpdate = new Date(now.getTime() + (options.nextUpdateMinutes ?? 60) * 60_000);
  const responses: asn1js.Sequence[] = [];
  for (const { reqCert } of requests) {
    const status = await options.lookup(integerToSerialHex(reqCert.serialNumber));
    responses.push(singleResponse(reqCert, status, now, nextUpdate));
  }
  const responderKeyHash = keyIdentifier(pki.ocsp.certificate.subjectPublicKeyInfo);
  const responseData: asn1js.BaseBlock[] = [
    // version v1 is the DEFAULT and so absent (X.690 §11.5); responderID byKey [2] (§4.2.2.3),
    // which stays valid when the responder certificate is renewed under the same key.
    explicit(2, new asn1js.OctetString({ valueHex: toArrayBuffer(responderKeyHash) })),
    generalizedTime(now),
    new asn1js.Sequence({ value: responses }),
  ];
  if (nonceExtension) {
    // §4.4.1: the nonce is echoed in responseExtensions, byte for byte.
    responseData.push(explicit(1, new asn1js.Sequence({ value: [nonceExtension.toSchema()] })));
  }
  const tbs = new asn1js.Sequence({ value: responseData }).toBER(false);
  const { algorithm, signature } = await signWith(pki.ocsp.key, new Uint8Array(tbs));
  const certs = asn1js.fromBER(toArrayBuffer(pki.ocsp.certificateDer)).result;
  const basic = new asn1js.Sequence({
    value: [
      asn1js.fromBER(tbs).result,
      algorithm.toSchema(),
      new asn1js.BitString({ valueHex: toArrayBuffer(signature) }),
      // §4.2.2.2: the responder's certificate travels with the response so clients can check the
      // delegation (issued by the CA in question, id-kp-OCSPSigning).
      explicit(0, new asn1js.Sequence({ value: [certs] })),
    ],
  });
  const response = new asn1js.Sequence({
    value: [
      new asn1js.Enumerated({ value: 0 }), // successful
      explicit(
        0,
        new asn1js.Sequence({
          value: [new asn1js.ObjectIdentifier({ value: OID.ocspBasic }), new asn1js.OctetString({ valueHex: basic.toBER(false) })],
        }),
      ),
    ],
  });
  return Buffer.from(response.toBER(false));
}

/**
 * The DER request of an OCSP GET (RFC 6960 Appendix A.1): the last path segment is the
 * URL-encoded base64 of the request. Base64url is tolerated; anything else returns undefined.
 */
export function decodeOcspGetRequest(pathSegment: string): Uint8Array | undefined {
  let text: string;
  try {
    text = decodeURIComponent(pathSegment);
  } catch {
    return undefined;
  }
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length > (MAX_REQUEST_BYTES * 4) / 3 + 4) {
    return undefined;
  }
  return Buffer.from(base64, 'base64');
}

export interface CreateOcspRequestOptions {
  certificateDer: Uint8Array;
  issuerDer: Uint8Array;
  /** 1..32 octets (RFC 8954); omitted, the request carries no nonce. */
  nonce?: Uint8Array;
  /** CertID hash; SHA-1 by default, the one every responder understands (RFC 5019 §2.1.1). */
  hash?: HashName;
}

/** An OCSPRequest for one certificate, e.g. to fill a PDF's DSS from this service's responder. */
export function createOcspRequest(options: CreateOcspRequestOptions): Buffer {
  const hash = options.hash ?? 'SHA-1';
  const certificate = pkijs.Certificate.fromBER(toArrayBuffer(options.certificateDer));
  const issuer = pkijs.Certificate.fromBER(toArrayBuffer(options.issuerDer));
  const certId = new asn1js.Sequence({
    value: [
      new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: oidByHash(hash) }), new asn1js.Null()] }),
      new asn1js.OctetString({ valueHex: toArrayBuffer(digest(hash, new Uint8Array(issuer.subject.toSchema().toBER(false)))) }),
      new asn1js.OctetString({
        valueHex: toArrayBuffer(digest(hash, issuer.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView)),
      }),
      certificate.serialNumber,
    ],
  });
  const tbs: asn1js.BaseBlock[] = [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [certId] })] })];
  if (options.nonce) {
    const nonce = new asn1js.OctetString({ valueHex: toArrayBuffer(options.nonce) });
    const extension = new asn1js.Sequence({
      value: [new asn1js.ObjectIdentifier({ value: OID.ocspNonce }), new asn1js.OctetString({ valueHex: nonce.toBER(false) })],
    });
    tbs.push(explicit(2, new asn1js.Sequence({ value: [extension] })));
  }
  return Buffer.from(new asn1js.Sequence({ value: [new asn1js.Sequence({ value: tbs })] }).toBER(false));
}
