// What a PDF signature's CMS (RFC 5652 SignedData) says, checked the way a relying party checks
// it: the signer's signature over the signed bytes (messageDigest and signature value, §5.4 and
// §5.6), the certificates it carries, its signature time-stamp (EN 319 122-1 §5.3) verified with
// verifyTimeStampToken, and whether the signer chains to a trusted root. Never throws on bad
// input: a CMS that cannot be read is reported as an invalid signature with the reason. A CMS in
// BER is read as written (pki/ber.ts) and its signed attributes checked as DER (§5.4); one under
// an algorithm signer-info.ts does not check is never valid. The byte range the CMS covers, and
// what the PDF around it says, are pdf/'s.
import { X509Certificate, createHash, type KeyObject } from 'node:crypto';
import type * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { validateChain } from '../chain.js';
import { toArrayBuffer } from '../primitives.js';
import { type CertificateSummary, summarizeCertificate } from './certificate-summary.js';
import { OID, hashByOid, nodeHashName } from './oids.js';
import { messageDigestIs, signingCertificateProblem } from './signed-attributes.js';
import {
  DIGEST_ALGORITHMS,
  type DigestAlgorithm,
  identifiesCertificate,
  signatureValue,
  signedAttributes,
  signedDataOf,
  verifySignerSignature,
} from './signer-info.js';
import { type VerifyTimeStampOptions, verifyTimeStampToken } from './timestamp-token.js';

/** Which check of the CMS failed (pdf/verify/byte-range-rules.ts names the structural ones). */
export type CmsRule =
  | 'cms-malformed'
  | 'cms-signer-count'
  | 'signer-certificate-missing'
  | 'unknown-subfilter'
  | 'cms-not-detached'
  | 'digest-algorithm'
  | 'signature-algorithm'
  | 'message-digest-mismatch'
  | 'signing-certificate-mismatch'
  | 'signature-value-invalid';

export interface CmsReport {
  validSignature: boolean;
  /** Why validSignature is false. */
  problem?: string;
  /** The failed check, when validSignature is false. */
  rule?: CmsRule;
  signer: CertificateSummary | null;
  /** Every certificate in the CMS, the signer's first. */
  certificates: CertificateSummary[];
  /** The signature-time-stamp attribute: absent (null), or verified or not with the reason. */
  timestamp: { verified: boolean; genTime?: Date; tsaSubject?: string; problem?: string } | null;
  /** The signer's path to a trusted root at the signing time (the time-stamp's, else /M). */
  trusted: boolean;
}

type Failure = { rule: CmsRule; message: string };
const no = (rule: CmsRule, message: string): Failure => ({ rule, message });

const KNOWN_SUBFILTERS = new Set(['ETSI.CAdES.detached', 'adbe.pkcs7.detached', 'ETSI.RFC3161']);

const derOf = (c: pkijs.Certificate) => Buffer.from(c.toSchema().toBER(false));

/** The token's imprint algorithm, so a TSA that hashed with SHA-384 or SHA-512 is checked too. */
function imprintAlgorithm(tokenDer: Uint8Array): VerifyTimeStampOptions['expectedImprintAlgorithm'] {
  try {
    const signed = signedDataOf(tokenDer).signedData;
    const tst = pkijs.TSTInfo.fromBER(signed.encapContentInfo.eContent!.getValue());
    return hashByOid(tst.messageImprint.hashAlgorithm.algorithmId) ?? 'SHA-256';
  } catch {
    return 'SHA-256'; // verifyTimeStampToken will say what is wrong with it
  }
}

/** The signature-time-stamp attribute's token (RFC 3161 Appendix A), as embedded; null if none. */
function timestampToken(info: pkijs.SignerInfo): Uint8Array | null {
  const attr = info.unsignedAttrs?.attributes.find((a) => a.type === OID.signatureTimeStampToken);
  // The token's bytes as embedded, not a re-encoding: its signature is over what the TSA wrote.
  return attr?.values[0] ? new Uint8Array((attr.values[0] as asn1js.BaseBlock).valueBeforeDecodeView) : null;
}

/**
 * The bytes a signature covers, as the parts of the file its /ByteRange names, in order (views, not
 * a copy: a 50 MB file would otherwise be held once more per signature).
 */
export type SignedParts = readonly Uint8Array[];

/** The digest of the parts, taken as if they were one run of bytes. */
function digestOfParts(node: string, parts: SignedParts, outputLength?: number): Buffer {
  const hash = createHash(node, outputLength ? { outputLength } : undefined);
  for (const part of parts) {
    hash.update(part);
  }
  return hash.digest();
}

/** Verifies a token whose imprint must be the digest of `stamped`. */
async function checkTimestamp(
  tokenDer: Uint8Array,
  stamped: SignedParts,
  certs: Buffer[],
  trustedRootsDer: Uint8Array[],
): Promise<CmsReport['timestamp']> {
  const algorithm = imprintAlgorithm(tokenDer) ?? 'SHA-256';
  const imprint = digestOfParts(nodeHashName(algorithm), stamped);
  try {
    const v = await verifyTimeStampToken(tokenDer, {
      expectedImprint: imprint,
      expectedImprintAlgorithm: algorithm,
      trustedRootsDer,
      untrustedDer: certs,
    });
    return { verified: true, genTime: v.genTime, tsaSubject: v.tsaSubject };
  } catch (err) {
    return { verified: false, problem: (err as Error).message };
  }
}

/**
 * Checks the CMS in /Contents against the bytes its /ByteRange covers. `subFilter` decides what
 * was signed: the bytes themselves (ETSI.CAdES.detached, adbe.pkcs7.detached), or a TSTInfo whose
 * imprint is their digest (ETSI.RFC3161, a document time-stamp). adbe.pkcs7.sha1 is refused.
 */
export async function analyzeCms(opts: {
  contents: Uint8Array;
  signedBytes: SignedParts | null;
  subFilter: string;
  claimedTime: Date | null;
  /** Roots the signer must chain to. */
  trustedRootsDer: Uint8Array[];
  /** Roots a time-stamp's TSA must chain to; default trustedRootsDer. */
  timestampRootsDer?: Uint8Array[];
}): Promise<CmsReport> {
  const report: CmsReport = { validSignature: false, signer: null, certificates: [], timestamp: null, trusted: false };
  let signed: pkijs.SignedData;
  let cms: Uint8Array;
  try {
    // /Contents is zero-padded after the CMS (DER or BER): only the first element is the CMS.
    const read = signedDataOf(opts.contents);
    signed = read.signedData;
    cms = opts.contents.subarray(0, read.length);
  } catch {
    return { ...report, rule: 'cms-malformed', problem: 'the /Contents value is not CMS SignedData' };
  }
  const certs = (signed.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  const info = signed.signerInfos[0];
  const signerCert = info ? (certs.find((c) => identifiesCertificate(info.sid, c)) ?? null) : null;
  report.signer = signerCert ? summarizeCertificate(signerCert) : null;
  report.certificates = [...(signerCert ? [signerCert] : []), ...certs.filter((c) => c !== signerCert)].map(summarizeCertificate);
  if (!info || signed.signerInfos.length !== 1) {
    return { ...report, rule: 'cms-signer-count', problem: 'a PDF signature carries exactly one SignerInfo' };
  }
  if (!signerCert) {
    return { ...report, rule: 'signer-certificate-missing', problem: 'the signer certificate is not in the CMS' };
  }
  const certDers = report.certificates.map((c) => c.der);
  // EN 319 122-1 §5.3: a signature time-stamp is over the SignerInfo's signature value; a document
  // time-stamp (ETSI.RFC3161, EN 319 142-1 §5.4) is itself the token, over the signed bytes.
  const token = opts.subFilter === 'ETSI.RFC3161' ? cms : timestampToken(info);
  const stamped = opts.subFilter === 'ETSI.RFC3161' ? opts.signedBytes : [signatureValue(info)];
  report.timestamp =
    token && stamped ? await checkTimestamp(token, stamped, certDers, opts.timestampRootsDer ?? opts.trustedRootsDer) : null;
  const at = report.timestamp?.genTime ?? opts.claimedTime;
  report.trusted = at
    ? validateChain(report.signer!.der, { trustedRootsDer: opts.trustedRootsDer, untrustedDer: certDers, at: [at] }).ok
    : false;

  const failed = checkSignature(signed, info, signerCert, opts.signedBytes, opts.subFilter);
  return failed ? { ...report, rule: failed.rule, problem: failed.message } : { ...report, validSignature: true };
}

/** What the /SubFilter allows the CMS to be; null when it may be checked further. */
function subFilterProblem(subFilter: string, eContent: Uint8Array | null): Failure | null {
  // Decided: adbe.pkcs7.sha1 is refused. The signer signs a SHA-1 digest of the document carried
  // inside the CMS instead of the document itself (encapsulated, not detached); PDF 2.0 (ISO
  // 32000-2 §12.8.3.3) deprecates it, and chosen-prefix SHA-1 collisions (Shambles, 2020) let
  // one such signature serve two documents.
  if (subFilter === 'adbe.pkcs7.sha1') {
    return no('cms-not-detached', 'adbe.pkcs7.sha1 signs a SHA-1 digest encapsulated in the CMS, not the document: it is not accepted');
  }
  if (!KNOWN_SUBFILTERS.has(subFilter)) {
    return no('unknown-subfilter', `the /SubFilter ${subFilter || '(none)'} is not a CMS signature this service checks`);
  }
  // §12.8.3.3: detached signatures carry no content: any encapsulated content would be what the
  // signer signed instead of the document, and validators disagree on which one they check.
  if ((subFilter === 'ETSI.CAdES.detached' || subFilter === 'adbe.pkcs7.detached') && eContent) {
    return no('cms-not-detached', 'the CMS encapsulates content; a detached PDF signature must not');
  }
  return null;
}

/** A document time-stamp's TSTInfo must attest the digest of the signed bytes. */
function documentTimestampProblem(eContent: Uint8Array | null, bytes: SignedParts): Failure | null {
  try {
    const tst = pkijs.TSTInfo.fromBER(toArrayBuffer(eContent ?? new Uint8Array()));
    const alg = hashByOid(tst.messageImprint.hashAlgorithm.algorithmId);
    if (!alg || !digestOfParts(nodeHashName(alg), bytes).equals(Buffer.from(tst.messageImprint.hashedMessage.valueBlock.valueHexView))) {
      return no('message-digest-mismatch', 'the time-stamp imprint is not the digest of the signed bytes');
    }
    return null;
  } catch {
    return no('cms-malformed', 'the document time-stamp carries no readable TSTInfo');
  }
}

/** The signature value over `data`, checked with the signer's key. */
function signatureProblem(info: pkijs.SignerInfo, hash: string, data: Uint8Array, key: KeyObject): Failure | null {
  const outcome = verifySignerSignature(info, hash, data, key);
  // An algorithm this service cannot check proves nothing: the signature is not valid.
  return outcome.ok
    ? null
    : outcome.unsupported
      ? no('signature-algorithm', outcome.unsupported)
      : no('signature-value-invalid', outcome.reason ?? 'the signature value does not verify with the signer certificate');
}

/** The signer's signature over `content`, through its signed attributes when it has them (RFC 5652 §5.4). */
function signerSignatureProblem(
  info: pkijs.SignerInfo,
  digest: DigestAlgorithm,
  content: SignedParts,
  cert: pkijs.Certificate,
  cades: boolean,
): Failure | null {
  let key: KeyObject;
  try {
    key = new X509Certificate(derOf(cert)).publicKey;
  } catch {
    return no('signer-certificate-missing', 'the signer certificate cannot be read');
  }
  try {
    const attrs = signedAttributes(info);
    if (!attrs) {
      // RFC 5652 §5.4: without signed attributes the signature is over the content itself, which
      // is then needed in one piece (such signatures are not PAdES, and rare).
      return signatureProblem(info, digest.name, content.length === 1 ? content[0] : Buffer.concat(content), key);
    }
    if (!messageDigestIs(attrs.attributes, digestOfParts(digest.node, content, digest.outputLength))) {
      return no(
        'message-digest-mismatch',
        'the messageDigest attribute does not match the signed bytes: the document was changed after signing',
      );
    }
    // §5.4: the signature covers the DER of the signed attributes with the SET OF tag, not [0],
    // whatever encoding they were sent in.
    return signatureProblem(info, digest.name, attrs.der, key) ?? signingCertificateProblem(attrs.attributes, derOf(cert), cades);
  } catch (err) {
    return no('cms-malformed', `the signature cannot be checked: ${(err as Error).message}`);
  }
}

/** The reason the signature does not verify, or null when it does. */
function checkSignature(
  signed: pkijs.SignedData,
  info: pkijs.SignerInfo,
  cert: pkijs.Certificate,
  bytes: SignedParts | null,
  subFilter: string,
): Failure | null {
  if (!bytes) {
    return no('message-digest-mismatch', 'the /ByteRange does not lie inside the file');
  }
  const digest = DIGEST_ALGORITHMS[info.digestAlgorithm.algorithmId];
  if (!digest) {
    return no('digest-algorithm', `unsupported digest algorithm ${info.digestAlgorithm.algorithmId}`);
  }
  const eContent = signed.encapContentInfo.eContent ? new Uint8Array(signed.encapContentInfo.eContent.getValue()) : null;
  const refused =
    subFilterProblem(subFilter, eContent) ?? (subFilter === 'ETSI.RFC3161' ? documentTimestampProblem(eContent, bytes) : null);
  return refused ?? signerSignatureProblem(info, digest, eContent ? [eContent] : bytes, cert, subFilter === 'ETSI.CAdES.detached');
}
