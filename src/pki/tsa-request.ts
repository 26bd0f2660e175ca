// An RFC 3161 TimeStampReq (§2.4.1) for a SHA-256 imprint: what a signature asks the time-stamp
// authority, built here so the in-process TSA and an external one receive the same bytes.
import { randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { OID } from './cms/oids.js';

/** `policyOid`: the TSA policy asked for (reqPolicy, §2.4.1), e.g. an operator's PSC policy. */
export function createTimeStampRequest(imprint: Uint8Array, nonce: Uint8Array, certReq = true, policyOid?: string): Buffer {
  const req = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: Uint8Array.from(imprint).buffer }),
    }),
    nonce: new asn1js.Integer({ valueHex: Uint8Array.from(nonce).buffer }),
    certReq,
    ...(policyOid ? { reqPolicy: policyOid } : {}),
  });
  return Buffer.from(req.toSchema().toBER(false));
}

/**
 * A fresh nonce (RFC 3161 §2.4.1) of 16 random bytes whose first byte is 0x01..0x7f, so that the
 * INTEGER it becomes is positive and minimally encoded: a first byte with the high bit set would be
 * a negative number, and a leading zero a non-minimal DER encoding, which TSAs (OpenSSL's among
 * them) refuse as a malformed request.
 */
export function randomNonce(): Uint8Array {
  const nonce = randomBytes(16);
  nonce[0] = (nonce[0] % 0x7f) + 1;
  return new Uint8Array(nonce);
}
