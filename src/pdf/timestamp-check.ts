// Gap 3: @libpdf/core embeds whatever its time-stamp authority returns. A signature time-stamp
// (EN 319 122-1 §5.3: the unsigned signature-time-stamp attribute that makes a signature B-T,
// EN 319 142-1 §6.3) is only worth embedding if it is about *this* signature, fresh, and from a
// TSA we trust, so every reply is checked here first, against RFC 3161 (§2.4.2 response, §2.4.1
// request and nonce, §2.3 TSA certificate) and RFC 5035/5816 (ESS signing certificate). Any
// failure is TIMESTAMP_INVALID.
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { certificateDer, chainProblem, extendedKeyUsage, own, parseCertificate } from './cert-chain.js';
import { PdfSignError } from './sign-errors.js';

const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const OID_TST_INFO = '1.2.840.113549.1.9.16.1.4';
const OID_KP_TIME_STAMPING = '1.3.6.1.5.5.7.3.8';
const OID_SIGNING_CERTIFICATE = '1.2.840.113549.1.9.16.2.12';
const OID_SIGNING_CERTIFICATE_V2 = '1.2.840.113549.1.9.16.2.47';
const HASHES: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};
const OID_SHA256 = '2.16.840.1.101.3.4.2.1';

export interface CheckedTimestamp {
  /** The TimeStampToken (a CMS ContentInfo), DER, ready to be the attribute value. */
  tokenDer: Uint8Array;
  genTime: Date;
  tsaSubject: string;
}

function invalid(message: string): never {
  throw new PdfSignError('TIMESTAMP_INVALID', `time-stamp reply refused: ${message}`);
}

const equalBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);

/** INTEGER content as a number, so 00-prefixed and minimal encodings of one nonce compare equal. */
function integerValue(bytes: Uint8Array): bigint {
  return bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);
}

function subjectOf(cert: pkijs.Certificate): string {
  return cert.subject.typesAndValues.map((tv) => `${tv.type}=${String(tv.value.valueBlock.value)}`).join(', ');
}

/**
 * RFC 3161 §2.4.1 requires the ESS signing-certificate attribute (v1, or v2 per RFC 5816) in the
 * token, binding the TSA certificate to the signature: without it a token could be re-attributed.
 */
function checkEssBinding(signerInfo: pkijs.SignerInfo, tsaCert: pkijs.Certificate): void {
  const attr = signerInfo.signedAttrs?.attributes.find((a) => a.type === OID_SIGNING_CERTIFICATE || a.type === OID_SIGNING_CERTIFICATE_V2);
  if (!attr) {
    invalid('the token has no ESS signing-certificate attribute (RFC 3161 §2.4.1)');
  }
  const certs = (attr.values[0] as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence | undefined;
  const first = certs?.valueBlock.value[0] as asn1js.Sequence | undefined;
  const parts = first?.valueBlock.value ?? [];
  let hashOid = attr.type === OID_SIGNING_CERTIFICATE ? '1.3.14.3.2.26' : OID_SHA256; // v2: DEFAULT sha256
  let hashIndex = 0;
  if (parts[0] instanceof asn1js.Sequence) {
    hashOid = (parts[0].valueBlock.value[0] as asn1js.ObjectIdentifier).valueBlock.toString();
    hashIndex = 1;
  }
  const certHash = parts[hashIndex];
  const algorithm = HASHES[hashOid];
  if (!(certHash instanceof asn1js.OctetString) || !algorithm) {
    invalid('the ESS signing-certificate attribute cannot be read');
  }
  const actual = createHash(algorithm).update(certificateDer(tsaCert)).digest();
  if (!equalBytes(new Uint8Array(actual), certHash.valueBlock.valueHexView)) {
    invalid('the ESS signing-certificate attribute names another certificate than the one that signed');
  }
}

/**
 * The token's SignedData. pkijs reads certificates through a generic schema match that costs
 * over a millisecond a certificate, so plain certificates are read by parseCertificate() instead, from
 * their own bytes: for a TSA whose certificates recur that is the cached object, already
 * parsed and encoded. Anything but plain certificates is left to pkijs.
 */
function parseSignedData(content: asn1js.Sequence): pkijs.SignedData {
  const fields = content.valueBlock.value;
  const set = fields.find((b) => b.idBlock.tagClass === 3 && b.idBlock.tagNumber === 0) as asn1js.Constructed | undefined;
  const blocks = set?.valueBlock.value ?? [];
  if (!set || !blocks.every((b) => b instanceof asn1js.Sequence)) {
    return new pkijs.SignedData({ schema: content });
  }
  const signed = new pkijs.SignedData({ schema: new asn1js.Sequence({ value: fields.filter((b) => b !== set) }) });
  signed.certificates = blocks.map((b) => parseCertificate(new Uint8Array(b.valueBeforeDecodeView)));
  return signed;
}

/**
 * Checks a DER TimeStampResp obtained for `timestampedData` (the SignerInfo signature value) with
 * `nonce`, and returns its token. `extraCertsDer` may supply intermediates the token left out.
 */
export async function checkTimestampReply(opts: {
  replyDer: Uint8Array;
  timestampedData: Uint8Array;
  nonce: Uint8Array;
  trustedRootsDer: Uint8Array[];
  extraCertsDer?: Uint8Array[];
}): Promise<CheckedTimestamp> {
  let resp: pkijs.TimeStampResp;
  let replyBlock: asn1js.Sequence;
  try {
    // Parsed once: the pkijs view for the checks, the asn1js tree for the token's own bytes.
    const parsed = asn1js.fromBER(own(opts.replyDer));
    if (parsed.offset === -1) {
      throw new Error(parsed.result.error);
    }
    replyBlock = parsed.result as asn1js.Sequence;
    resp = new pkijs.TimeStampResp({ schema: replyBlock });
  } catch (err) {
    invalid(`not a DER TimeStampResp (${(err as Error).message})`);
  }
  // §2.4.2: only granted (0) and grantedWithMods (1) carry a token.
  const status = resp.status.status as number;
  if (status !== 0 && status !== 1) {
    const text = (resp.status.statusStrings ?? []).map((s) => s.valueBlock.value).join('; ');
    invalid(`the TSA answered status ${status}${text ? ` (${text})` : ''}`);
  }
  const token = resp.timeStampToken;
  if (!token || token.contentType !== OID_SIGNED_DATA) {
    invalid('the reply carries no SignedData time-stamp token');
  }
  let signed: pkijs.SignedData;
  let tst: pkijs.TSTInfo;
  try {
    signed = parseSignedData(token.content as asn1js.Sequence);
    if (signed.encapContentInfo.eContentType !== OID_TST_INFO || !signed.encapContentInfo.eContent) {
      invalid('the token does not encapsulate a TSTInfo');
    }
    tst = pkijs.TSTInfo.fromBER(signed.encapContentInfo.eContent.getValue());
  } catch (err) {
    if (err instanceof PdfSignError) {
      throw err;
    }
    invalid(`the token cannot be parsed (${(err as Error).message})`);
  }

  // The imprint must be the SHA-256 of what we asked to time-stamp: else it proves nothing about us.
  const imprint = new Uint8Array(createHash('sha256').update(opts.timestampedData).digest());
  if (tst.messageImprint.hashAlgorithm.algorithmId !== OID_SHA256) {
    invalid(`the imprint uses ${tst.messageImprint.hashAlgorithm.algorithmId}, not SHA-256`);
  }
  if (!equalBytes(tst.messageImprint.hashedMessage.valueBlock.valueHexView, imprint)) {
    invalid('the message imprint is not the digest of this signature value');
  }
  // §2.4.2: the nonce must echo the request's, or the token may be a replay.
  if (!tst.nonce) {
    invalid('the token does not echo the nonce');
  }
  if (integerValue(tst.nonce.valueBlock.valueHexView) !== integerValue(opts.nonce)) {
    invalid('the token echoes another nonce');
  }
  if (signed.signerInfos.length !== 1) {
    invalid(`the token has ${signed.signerInfos.length} signers, not one`);
  }

  // The TSA's signature over the TSTInfo (pkijs also re-checks the imprint against the data).
  let tsaCert: pkijs.Certificate;
  try {
    const result = await signed.verify({ signer: 0, data: own(opts.timestampedData).buffer, extendedMode: true, checkChain: false });
    if (!result.signatureVerified || !result.signerCertificate) {
      invalid('the TSA signature does not verify');
    }
    tsaCert = result.signerCertificate;
  } catch (err) {
    if (err instanceof PdfSignError) {
      throw err;
    }
    const e = err as { message?: string };
    invalid(`the TSA signature does not verify (${e.message ?? String(err)})`);
  }

  // §2.3: a TSA certificate has exactly the time-stamping purpose, critical.
  const eku = extendedKeyUsage(tsaCert);
  if (!eku?.critical || eku.purposes.length !== 1 || eku.purposes[0] !== OID_KP_TIME_STAMPING) {
    invalid('the TSA certificate lacks a critical extended key usage of id-kp-timeStamping only');
  }
  checkEssBinding(signed.signerInfos[0], tsaCert);

  const candidates = [
    ...(signed.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate),
    ...(opts.extraCertsDer ?? []).map(parseCertificate),
  ];
  const problem = await chainProblem(tsaCert, candidates, opts.trustedRootsDer.map(parseCertificate), tst.genTime);
  if (problem) {
    invalid(`the TSA certificate does not chain to a trusted root at the time-stamp's time: ${problem}`);
  }
  // Embed the token exactly as the TSA encoded it (a re-encoding could differ from what it signed).
  const tokenDer = new Uint8Array(replyBlock.valueBlock.value[1].valueBeforeDecodeView);
  return {
    tokenDer,
    genTime: tst.genTime,
    tsaSubject: subjectOf(tsaCert),
  };
}
