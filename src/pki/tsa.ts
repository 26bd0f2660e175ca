// RFC 3161 time-stamp authority: TimeStampReq in, TimeStampResp out; plus the token alone, for the
// service's own PAdES signatures. The clock and the serial are parameters (DESIGN 6). The TSTInfo
// is written here; the CMS SignedData around it in cms/timestamp-signed-data.ts.
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { type HashName, hashByOid } from './cms/oids.js';
import { digestAlgorithm, timeStampTokenSignedData } from './cms/timestamp-signed-data.js';
import { PkiError } from './errors.js';
import type { LoadedPki } from './material-types.js';
import {
  assertSingleStructure,
  derElement,
  digestLength,
  explicit,
  generalizedTime,
  serialToInteger,
  toArrayBuffer,
} from './primitives.js';

/** Imprint hashes the TSA accepts. SHA-1 is refused: a collision would let one time-stamp cover two documents. */
export const TSA_HASHES: readonly HashName[] = ['SHA-256', 'SHA-384', 'SHA-512'];

export interface TimeStampOptions {
  now: Date;
  /** Hex serial, unique per token (RFC 3161 §2.4.2, at most 160 bits): use randomSerialHex(). */
  serialNumber: string;
  /** The TSA policy OID put in every token; a request naming another policy is rejected. */
  policyOid: string;
  /** Default { seconds: 1 }: genTime is the clock truncated to the second. */
  accuracy?: { seconds?: number; millis?: number; micros?: number };
}

/** What one token attests: a hash, and optionally the requester's nonce. */
export interface TimeStampSubject {
  hash: HashName;
  hashedMessage: Uint8Array;
  /** Echoed in TSTInfo (RFC 3161 §2.4.2). */
  nonce?: bigint;
  /** Include the TSA certificate and its chain below the root (RFC 3161 §2.4.1 certReq). */
  certReq?: boolean;
}

/** PKIFailureInfo bits (RFC 3161 §2.4.2). */
export const FailInfo = {
  badAlg: 0,
  badRequest: 2,
  badDataFormat: 5,
  timeNotAvailable: 14,
  unacceptedPolicy: 15,
  unacceptedExtension: 16,
  systemFailure: 25,
} as const;

const MAX_REQUEST_BYTES = 8 * 1024;

function accuracyBlock(accuracy: NonNullable<TimeStampOptions['accuracy']>): asn1js.Sequence {
  const value: asn1js.BaseBlock[] = [];
  if (accuracy.seconds) {
    value.push(new asn1js.Integer({ value: accuracy.seconds }));
  }
  // Module PKIXTSP uses IMPLICIT TAGS: millis [0] and micros [1] are primitive context tags.
  for (const [tagNumber, amount] of [
    [0, accuracy.millis],
    [1, accuracy.micros],
  ] as const) {
    if (amount) {
      const integer = new asn1js.Integer({ value: amount });
      value.push(new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber }, valueHex: integer.valueBlock.valueHexView.slice().buffer }));
    }
  }
  return new asn1js.Sequence({ value });
}

/** A TimeStampToken (ContentInfo DER) for `subject`, with the imprint algorithm given as a block. */
async function signToken(
  pki: LoadedPki,
  subject: TimeStampSubject,
  imprint: asn1js.BaseBlock,
  nonce: asn1js.Integer | undefined,
  options: TimeStampOptions,
): Promise<Buffer> {
  const tstInfo: asn1js.BaseBlock[] = [
    new asn1js.Integer({ value: 1 }),
    new asn1js.ObjectIdentifier({ value: options.policyOid }),
    imprint,
    serialToInteger(options.serialNumber),
    generalizedTime(options.now), // whole seconds: RFC 3161 §2.4.2 forbids trailing zero fractions
    accuracyBlock(options.accuracy ?? { seconds: 1 }),
    // ordering FALSE is the DEFAULT and so absent.
  ];
  if (nonce) {
    tstInfo.push(nonce);
  }
  // tsa [0] GeneralName: a hint naming the TSA, which MUST match the certificate (§2.4.2).
  tstInfo.push(explicit(0, explicit(4, pki.tsa.certificate.subject.toSchema())));
  const eContent = Buffer.from(new asn1js.Sequence({ value: tstInfo }).toBER(false));
  return timeStampTokenSignedData(pki, eContent, subject.certReq === true);
}

function checkSubject(subject: TimeStampSubject): void {
  if (!TSA_HASHES.includes(subject.hash) || subject.hashedMessage.byteLength !== digestLength(subject.hash)) {
    throw new PkiError('bad_argument', `a ${subject.hash} imprint of ${subject.hashedMessage.byteLength} bytes cannot be time-stamped`);
  }
}

/**
 * A TimeStampToken (DER ContentInfo) for a hash, without a request: what @libpdf/core's
 * TimestampAuthority.timestamp(digest, algorithm) returns.
 */
export async function createTimeStampToken(pki: LoadedPki, subject: TimeStampSubject, options: TimeStampOptions): Promise<Buffer> {
  checkSubject(subject);
  const imprint = new asn1js.Sequence({
    value: [digestAlgorithm(subject.hash), new asn1js.OctetString({ valueHex: toArrayBuffer(subject.hashedMessage) })],
  });
  const nonce = subject.nonce === undefined ? undefined : asn1js.Integer.fromBigInt(subject.nonce);
  return signToken(pki, subject, imprint, nonce, options);
}

/** A TimeStampResp with status rejection (2) and one failure bit (RFC 3161 §2.4.2). */
export function createTimeStampRejection(failBit: number, text: string): Buffer {
  const bytes = new Uint8Array(Math.floor(failBit / 8) + 1);
  bytes[Math.floor(failBit / 8)] = 0x80 >> (failBit % 8);
  const status = new asn1js.Sequence({
    value: [
      new asn1js.Integer({ value: 2 }),
      new asn1js.Sequence({ value: [new asn1js.Utf8String({ value: text })] }),
      new asn1js.BitString({ valueHex: bytes.buffer, unusedBits: 7 - (failBit % 8) }), // DER named bits
    ],
  });
  return Buffer.from(new asn1js.Sequence({ value: [status] }).toBER(false));
}

/**
 * Answers a TimeStampReq (DER, application/timestamp-query) with a TimeStampResp (DER,
 * application/timestamp-reply). Refusals are answers, not exceptions: a bad request gets status
 * rejection with the failInfo bit RFC 3161 §2.4.2 names.
 */
export async function createTimeStampReply(pki: LoadedPki, requestDer: Uint8Array, options: TimeStampOptions): Promise<Buffer> {
  if (requestDer.byteLength === 0 || requestDer.byteLength > MAX_REQUEST_BYTES) {
    return createTimeStampRejection(FailInfo.badDataFormat, 'the request is empty or too large');
  }
  let request: pkijs.TimeStampReq;
  try {
    assertSingleStructure(requestDer);
    request = pkijs.TimeStampReq.fromBER(toArrayBuffer(requestDer));
  } catch {
    return createTimeStampRejection(FailInfo.badDataFormat, 'the request is not a DER TimeStampReq');
  }
  if (request.version !== 1) {
    return createTimeStampRejection(FailInfo.badRequest, 'only TimeStampReq version 1 is supported');
  }
  const hash = hashByOid(request.messageImprint.hashAlgorithm.algorithmId);
  if (!hash || !TSA_HASHES.includes(hash)) {
    return createTimeStampRejection(FailInfo.badAlg, 'the imprint must be SHA-256, SHA-384 or SHA-512');
  }
  const hashedMessage = request.messageImprint.hashedMessage.valueBlock.valueHexView;
  if (hashedMessage.byteLength !== digestLength(hash)) {
    return createTimeStampRejection(FailInfo.badDataFormat, `the imprint is not a ${hash} digest`);
  }
  if (request.reqPolicy !== undefined && request.reqPolicy !== options.policyOid) {
    return createTimeStampRejection(FailInfo.unacceptedPolicy, `this TSA only issues under policy ${options.policyOid}`);
  }
  if (request.extensions && request.extensions.length > 0) {
    // §2.4.1: an extension the TSA does not recognise MUST be rejected; none is supported.
    return createTimeStampRejection(FailInfo.unacceptedExtension, 'request extensions are not supported');
  }
  // The imprint is echoed as sent (same AlgorithmIdentifier encoding), the nonce as an INTEGER with
  // the same value (§2.4.2: "MUST be present if present in the request").
  const nonce = request.nonce ? new asn1js.Integer({ valueHex: request.nonce.valueBlock.valueHexView.slice().buffer }) : undefined;
  const token = await signToken(
    pki,
    { hash, hashedMessage, certReq: request.certReq === true },
    request.messageImprint.toSchema(),
    nonce,
    options,
  );
  const granted = new asn1js.Sequence({ value: [new asn1js.Integer({ value: 0 })] });
  return derElement(0x30, [new Uint8Array(granted.toBER(false)), token]);
}
