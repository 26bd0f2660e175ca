// Verification of an RFC 3161 time-stamp token, the CMS SignedData over a TSTInfo, from this TSA or
// any other: the checks a relying party makes (RFC 3161 §2.4.2, RFC 5816, RFC 5652 §5.4-5.6)
// without the network: the trusted roots, the clock and the expected imprint are parameters. The
// one time-stamp check of the service: a reply is checked here (through tsa-verify.ts) before
// signing embeds it, and tokens in PDFs when reports read them.
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { berToDer } from '../ber.js';
import { type CachedCertificate, cachedCertificateOrUndefined } from '../certificate-cache.js';
import { validateChain } from '../chain.js';
import { PkiError } from '../errors.js';
import { isTimeStampingCertificate } from '../material-checks.js';
import { derChildren } from '../der-elements.js';
import { derElement, digest, integerToSerialHex, toArrayBuffer } from '../primitives.js';
import { type HashName, OID, hashByOid } from './oids.js';
import { essCertIdProblem, singleAttributeValue } from './signed-attributes.js';
import { identifiesCertificate, signedAttributes, verifySignerSignature } from './signer-info.js';

export interface VerifyTimeStampOptions {
  /** The digest the token must attest. */
  expectedImprint: Uint8Array;
  /** Its algorithm; default SHA-256. */
  expectedImprintAlgorithm?: HashName;
  /** The request's nonce, as an integer or its big-endian unsigned bytes. */
  expectedNonce?: bigint | Uint8Array;
  /** Trust anchors (DER). The TSA certificate must chain to one. */
  trustedRootsDer: readonly Uint8Array[];
  /** Extra certificates for path building, e.g. when the token was requested without certReq. */
  untrustedDer?: readonly Uint8Array[];
  /** When given, the chain must also be valid now, not only at genTime. */
  now?: Date;
}

/** What a verified token attests. */
export interface VerifiedTimeStamp {
  genTime: Date;
  /** The TSA certificate's subject, "C=.., O=.., CN=..". */
  tsaSubject: string;
  /** TSTInfo serialNumber, canonical hex. */
  serialNumber: string;
  policyOid: string;
  nonce?: bigint;
  tsaCertificateDer: Buffer;
  /** The token's bytes as the TSA encoded them (what a signature or a DSS embeds). */
  tokenDer: Buffer;
}

function fail(message: string): never {
  throw new PkiError('timestamp_invalid', message);
}

const asBigInt = (value: bigint | Uint8Array): bigint =>
  typeof value === 'bigint' ? value : value.byteLength === 0 ? 0n : BigInt(`0x${Buffer.from(value).toString('hex')}`);

function attributeValue(attributes: pkijs.Attribute[], type: string): asn1js.BaseBlock {
  // RFC 5652 §5.3: these attributes MUST have a single value and appear once.
  return singleAttributeValue(attributes, type) ?? fail(`the signed attribute ${type} is missing or repeated`);
}

/** RFC 3161 §2.4.1 / RFC 5816: the first ESSCertID(v2) must be the hash of the signer certificate. */
function checkSigningCertificate(attributes: pkijs.Attribute[], certificateDer: Buffer): void {
  const v2 = attributes.some((a) => a.type === OID.signingCertificateV2);
  const value = attributeValue(attributes, v2 ? OID.signingCertificateV2 : OID.signingCertificate);
  const problem = essCertIdProblem(value, v2, certificateDer);
  if (problem === 'malformed') {
    fail('the signing-certificate attribute is malformed');
  }
  if (problem) {
    fail('the signing-certificate attribute does not name the signer certificate');
  }
}

function findSigner(signerInfo: pkijs.SignerInfo, candidates: CachedCertificate[]): CachedCertificate {
  return (
    candidates.find((candidate) => identifiesCertificate(signerInfo.sid, candidate.pkijs)) ??
    fail('the TSA certificate is neither in the token nor among the given certificates')
  );
}
/**
 * The SignedData of a token, and its certificates' own bytes. pkijs reads certificates through a
 * generic schema match that costs over a millisecond each and keeps no bytes, so plain
 * certificates are taken from the DER as sent (cached by cachedCertificate, for a TSA whose
 * certificates recur) and only the rest of the SignedData is left to pkijs.
 */
function readSignedData(content: asn1js.Sequence): { signedData: pkijs.SignedData; certificatesDer: Buffer[] } {
  const fields = content.valueBlock.value;
  const set = fields.find((b) => b.idBlock.tagClass === 3 && b.idBlock.tagNumber === 0) as asn1js.Constructed | undefined;
  const blocks = set?.valueBlock.value ?? [];
  if (!set || !blocks.every((b) => b instanceof asn1js.Sequence)) {
    const signedData = new pkijs.SignedData({ schema: content });
    const certificatesDer = (signedData.certificates ?? [])
      .filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate)
      .map((c) => Buffer.from(c.toSchema().toBER(false)));
    return { signedData, certificatesDer };
  }
  const signedData = new pkijs.SignedData({ schema: new asn1js.Sequence({ value: fields.filter((b) => b !== set) }) });
  return { signedData, certificatesDer: blocks.map((b) => Buffer.from(b.valueBeforeDecodeView)) };
}

const SIGNED_DATA_OID = Buffer.from(new asn1js.ObjectIdentifier({ value: OID.signedData }).toBER(false));

/**
 * A DER token read by its headers (der-elements.ts): ContentInfo { id-signedData, [0] SignedData },
 * the certificates taken as the bytes they are and only the rest of the SignedData parsed, so the
 * hundreds of elements of its certificates are never turned into asn1js objects. Undefined for
 * anything else (BER, attribute certificates, another content type), which readToken reads whole.
 */
function readDerToken(tokenDer: Uint8Array): { signedData: pkijs.SignedData; certificatesDer: Buffer[] } | undefined {
  const info = derChildren(tokenDer);
  if (!info || tokenDer[0] !== 0x30 || info.length !== 2 || info[1].tag !== 0xa0) {
    return undefined;
  }
  const wrapped = derChildren(tokenDer, info[1]);
  if (!SIGNED_DATA_OID.equals(tokenDer.subarray(info[0].start, info[0].end)) || wrapped?.length !== 1 || wrapped[0].tag !== 0x30) {
    return undefined;
  }
  const fields = derChildren(tokenDer, wrapped[0]) ?? [];
  const sets = fields.filter((f) => f.tag === 0xa0); // certificates [0] IMPLICIT SET OF
  const certificates = sets.length === 1 ? derChildren(tokenDer, sets[0]) : [];
  if (fields.length === 0 || sets.length > 1 || !certificates?.every((c) => c.tag === 0x30)) {
    return undefined;
  }
  const rest = fields.filter((f) => f.tag !== 0xa0).map((f) => tokenDer.subarray(f.start, f.end));
  const parsed = asn1js.fromBER(toArrayBuffer(derElement(0x30, rest)));
  try {
    return {
      signedData: new pkijs.SignedData({ schema: parsed.result }),
      certificatesDer: certificates.map((c) => Buffer.from(tokenDer.subarray(c.start, c.end))),
    };
  } catch {
    return undefined;
  }
}

/** The token's SignedData and the certificates it carries; BER read through its DER. */
function readToken(tokenDer: Uint8Array): { signedData: pkijs.SignedData; certificatesDer: Buffer[] } {
  const fast = readDerToken(tokenDer);
  if (fast) {
    return fast;
  }
  const parse = (bytes: Uint8Array) => {
    const contentInfo = pkijs.ContentInfo.fromBER(toArrayBuffer(bytes));
    if (contentInfo.contentType !== OID.signedData) {
      fail('the token is not CMS SignedData');
    }
    return readSignedData(contentInfo.content as asn1js.Sequence);
  };
  try {
    try {
      return parse(tokenDer);
    } catch (error) {
      if (error instanceof PkiError) {
        throw error;
      }
      // A BER token pkijs's schemas do not take as written (a string in pieces where they expect a
      // primitive one): its DER holds the same values, and every signature in it is over DER.
      return parse(berToDer(tokenDer));
    }
  } catch (error) {
    throw error instanceof PkiError && error.code === 'timestamp_invalid'
      ? error
      : new PkiError('timestamp_invalid', 'the token does not parse as CMS SignedData');
  }
}

/** The one SignerInfo of a token and the TSTInfo it signs (RFC 3161 §2.4.2). */
function tokenContent(signedData: pkijs.SignedData): { signerInfo: pkijs.SignerInfo; eContent: Uint8Array } {
  const { encapContentInfo, signerInfos } = signedData;
  if (encapContentInfo.eContentType !== OID.tstInfo || !encapContentInfo.eContent) {
    fail('the token does not encapsulate a TSTInfo');
  }
  // RFC 3161 §2.4.2: the token MUST NOT contain any signature other than the TSA's.
  if (signerInfos.length !== 1 || !signerInfos[0].signedAttrs) {
    fail('the token must carry exactly one signature, with signed attributes');
  }
  return { signerInfo: signerInfos[0], eContent: new Uint8Array(encapContentInfo.eContent!.getValue()) };
}

/**
 * The TSA's signature: RFC 5652 §5.4, it covers the DER of the signed attributes as a SET OF (tag
 * 0x31), whatever encoding the token carries them in, and messageDigest must be the digest of the
 * content; the signed attributes name the TSA certificate.
 */
function checkTokenSignature(signerInfo: pkijs.SignerInfo, eContent: Uint8Array, signer: CachedCertificate): void {
  const hash = hashByOid(signerInfo.digestAlgorithm.algorithmId) ?? fail('unsupported digest algorithm');
  let signed: ReturnType<typeof signedAttributes>;
  try {
    signed = signedAttributes(signerInfo);
  } catch {
    fail('the signed attributes are not well-formed');
  }
  const attributes = signed?.attributes ?? [];
  const contentType = attributeValue(attributes, OID.contentType);
  if (!(contentType instanceof asn1js.ObjectIdentifier) || contentType.valueBlock.toString() !== OID.tstInfo) {
    fail('the contentType attribute is not id-ct-TSTInfo');
  }
  const messageDigest = attributeValue(attributes, OID.messageDigest);
  if (
    !(messageDigest instanceof asn1js.OctetString) ||
    !digest(hash, eContent).equals(Buffer.from(messageDigest.valueBlock.valueHexView))
  ) {
    fail('the messageDigest attribute does not match the TSTInfo');
  }
  const outcome = verifySignerSignature(signerInfo, hash, signed!.der, signer.x509.publicKey);
  if (!outcome.ok) {
    fail(outcome.unsupported ?? outcome.reason ?? 'the CMS signature does not verify');
  }
  checkSigningCertificate(attributes, signer.der);
}

/** The TSTInfo, once it attests the expected imprint and echoes the expected nonce. */
function checkTstInfo(eContent: Uint8Array, options: VerifyTimeStampOptions): pkijs.TSTInfo {
  let tstInfo: pkijs.TSTInfo;
  try {
    tstInfo = pkijs.TSTInfo.fromBER(toArrayBuffer(eContent));
  } catch {
    return fail('the TSTInfo does not parse');
  }
  const expectedHash = options.expectedImprintAlgorithm ?? 'SHA-256';
  if (
    hashByOid(tstInfo.messageImprint.hashAlgorithm.algorithmId) !== expectedHash ||
    !Buffer.from(tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView).equals(Buffer.from(options.expectedImprint))
  ) {
    fail('the message imprint is not the expected one');
  }
  if (options.expectedNonce !== undefined && tstInfo.nonce?.toBigInt() !== asBigInt(options.expectedNonce)) {
    fail('the nonce does not echo the request');
  }
  return tstInfo;
}

/** Verifies a TimeStampToken (DER ContentInfo). Throws PkiError('timestamp_invalid') with the failed check. */
export async function verifyTimeStampToken(tokenDer: Uint8Array, options: VerifyTimeStampOptions): Promise<VerifiedTimeStamp> {
  const { signedData, certificatesDer: tokenCerts } = readToken(tokenDer);
  const { signerInfo, eContent } = tokenContent(signedData);
  const untrusted = [...tokenCerts, ...(options.untrustedDer ?? [])];
  const signer = findSigner(
    signerInfo,
    untrusted.map(cachedCertificateOrUndefined).filter((c): c is CachedCertificate => c !== undefined),
  );
  checkTokenSignature(signerInfo, eContent, signer);
  const tstInfo = checkTstInfo(eContent, options);
  // RFC 3161 §2.3: the TSA certificate has the critical EKU id-kp-timeStamping, alone.
  if (!isTimeStampingCertificate(signer.der)) {
    fail('the signer certificate is not a time-stamping certificate (critical EKU timeStamping)');
  }
  const at = options.now ? [tstInfo.genTime, options.now] : [tstInfo.genTime];
  const chain = validateChain(signer.der, { trustedRootsDer: options.trustedRootsDer, untrustedDer: untrusted, at });
  if (!chain.ok) {
    fail(`the TSA certificate does not chain to a trusted root: ${chain.problem.message}`);
  }
  return {
    genTime: tstInfo.genTime,
    tsaSubject: signer.subject,
    serialNumber: integerToSerialHex(tstInfo.serialNumber),
    policyOid: tstInfo.policy,
    nonce: tstInfo.nonce?.toBigInt(),
    tsaCertificateDer: signer.der,
    tokenDer: Buffer.from(tokenDer),
  };
}
