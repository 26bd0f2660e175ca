// RFC 3161 time-stamp authority: TimeStampReq in, TimeStampResp out; plus the token alone, for the
// service's own PAdES signatures. The clock and the serial are parameters (DESIGN 6).
//
// The token is CMS SignedData (RFC 5652) over TSTInfo, signed with SHA-256, carrying the signed
// attributes contentType, messageDigest and ESS signing-certificate-v2 (RFC 5816 §2.2.1, which
// lets SHA-256 identify the TSA certificate where RFC 3161's ESSCertID would need SHA-1). It is
// written by hand with asn1js: the signed attributes must be a DER SET (sorted), because
// verifiers such as OpenSSL re-encode them before checking the signature.
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { PkiError } from './errors.js';
import type { LoadedPki } from './material-types.js';
import {
  OID,
  assertSingleStructure,
  derElement,
  derSetOf,
  digest,
  digestLength,
  explicit,
  generalizedTime,
  hashByOid,
  oidByHash,
  serialToInteger,
  signData,
  toArrayBuffer,
  type HashName,
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

const attribute = (type: string, value: asn1js.BaseBlock) =>
  new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: type }), new asn1js.Set({ value: [value] })] });
// RFC 5754 §2: the parameters of SHA-2 AlgorithmIdentifiers are absent.
const digestAlgorithm = (hash: HashName) => new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: oidByHash(hash) })] });

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
  const tsaCert = pki.tsa.certificate;
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
  tstInfo.push(explicit(0, explicit(4, tsaCert.subject.toSchema())));
  const eContent = Buffer.from(new asn1js.Sequence({ value: tstInfo }).toBER(false));

  const signingCertificateV2 = new asn1js.Sequence({
    value: [
      new asn1js.Sequence({
        value: [
          // ESSCertIDv2, hashAlgorithm absent = DEFAULT id-sha256 (RFC 5035 §4)
          new asn1js.Sequence({
            value: [
              new asn1js.OctetString({ valueHex: toArrayBuffer(digest('SHA-256', pki.tsa.certificateDer)) }),
              new asn1js.Sequence({
                value: [new asn1js.Sequence({ value: [explicit(4, tsaCert.issuer.toSchema())] }), tsaCert.serialNumber],
              }),
            ],
          }),
        ],
      }),
    ],
  });
  const signedAttributes = [
    attribute(OID.contentType, new asn1js.ObjectIdentifier({ value: OID.tstInfo })),
    attribute(OID.messageDigest, new asn1js.OctetString({ valueHex: toArrayBuffer(digest('SHA-256', eContent)) })),
    attribute(OID.signingCertificateV2, signingCertificateV2),
  ];
  // The signature covers the DER SET OF; the SignerInfo carries the same content as [0] IMPLICIT.
  const signedSet = derSetOf(signedAttributes);
  const { algorithm, signature } = await signData(pki.tsa.privateKey, new Uint8Array(signedSet.toBER(false)));

  const signerInfo = new asn1js.Sequence({
    value: [
      new asn1js.Integer({ value: 1 }), // issuerAndSerialNumber sid
      new asn1js.Sequence({ value: [tsaCert.issuer.toSchema(), tsaCert.serialNumber] }),
      digestAlgorithm('SHA-256'),
      derSetOf(signedAttributes, { tagClass: 3, tagNumber: 0 }),
      algorithm.toSchema(),
      new asn1js.OctetString({ valueHex: toArrayBuffer(signature) }),
    ],
  });
  // The certificates and the token go in as the bytes they are (no parse and re-encoding per
  // token), so the outer structures are joined from encodings: tag 0x30 SEQUENCE, 0xa0 [0].
  const der = (block: asn1js.BaseBlock) => new Uint8Array(block.toBER(false));
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
  if (subject.certReq) {
    // The TSA certificate MUST be included when certReq is true (§2.4.1); the issuing CA and any
    // intermediates go with it so a verifier only needs the root. [0] IMPLICIT SET OF, DER-sorted.
    const certs = [pki.tsa.certificateDer, ...pki.chainDer.slice(0, -1)].map((c) => Buffer.from(c)).sort(Buffer.compare);
    signedData.push(derElement(0xa0, certs));
  }
  signedData.push(der(new asn1js.Set({ value: [signerInfo] })));
  return derElement(0x30, [der(new asn1js.ObjectIdentifier({ value: OID.signedData })), derElement(0xa0, [derElement(0x30, signedData)])]);
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
