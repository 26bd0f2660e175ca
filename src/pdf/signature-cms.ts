// What a PDF signature's CMS (RFC 5652 SignedData) says, checked the way a relying party checks
// it: the signer's signature over the signed bytes (messageDigest and signature value, §5.4 and
// §5.6), the certificates it carries, its signature time-stamp (EN 319 122-1 §5.3) verified with
// pki/'s verifyTimeStampToken, and whether the signer chains to a trusted root. Never throws on
// bad input: a CMS that cannot be read is reported as an invalid signature with the reason. A CMS
// in BER is read as written (pki/ber.ts) and its signed attributes checked as DER (§5.4); one under
// an algorithm pki/signer-info.ts does not check is never valid.
import { X509Certificate, createHash, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import {
  DIGEST_ALGORITHMS,
  SIGNATURE_ALGORITHMS,
  digestWith,
  normalizeSerialHex,
  toArrayBuffer as own,
  signatureValue,
  signedAttributes,
  signedDataOf,
  validateChain,
  verifySignerSignature,
  verifyTimeStampToken,
  type VerifyTimeStampOptions,
} from '../pki/index.js';
import { signingCertificateProblem } from './verify/signing-certificate-attr.js';

/** One certificate as the report shows it. */
export interface CertificateSummary {
  commonName: string;
  /** rfc822Name of subjectAltName, else the deprecated emailAddress of the subject; '' if none. */
  email: string;
  /** Canonical lowercase hex, as the register of issued certificates stores it. */
  serial: string;
  /** e.g. sha256WithRSAEncryption; the OID when the name is not known here. */
  signatureAlgorithm: string;
  issuerCommonName: string;
  der: Buffer;
}

/** Which check of the CMS failed (verify/byte-range-rules.ts names the structural ones). */
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

const OID = {
  messageDigest: '1.2.840.113549.1.9.4',
  signatureTimeStamp: '1.2.840.113549.1.9.16.2.14',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  commonName: '2.5.4.3',
  emailAddress: '1.2.840.113549.1.9.1',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
};
const HASHES: Record<string, 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512'> = {
  '1.3.14.3.2.26': 'SHA-1',
  '2.16.840.1.101.3.4.2.1': 'SHA-256',
  '2.16.840.1.101.3.4.2.2': 'SHA-384',
  '2.16.840.1.101.3.4.2.3': 'SHA-512',
};
const ALGORITHMS: Record<string, string> = Object.fromEntries(Object.entries(SIGNATURE_ALGORITHMS).map(([oid, a]) => [oid, a.name]));

const KNOWN_SUBFILTERS = new Set(['ETSI.CAdES.detached', 'adbe.pkcs7.detached', 'ETSI.RFC3161']);

const nodeHash = (h: string) => h.replace('-', '').toLowerCase();
const derOf = (c: pkijs.Certificate) => Buffer.from(c.toSchema().toBER(false));

function attribute(name: pkijs.RelativeDistinguishedNames, oid: string): string {
  const found = name.typesAndValues.find((tv) => tv.type === oid);
  const value = (found?.value.valueBlock as { value?: unknown } | undefined)?.value;
  return typeof value === 'string' ? value : '';
}

export function summarizeCertificate(c: pkijs.Certificate): CertificateSummary {
  const san = c.extensions?.find((e) => e.extnID === OID.subjectAltName)?.parsedValue as pkijs.AltName | undefined;
  const sanEmail = san?.altNames.find((n) => n.type === 1)?.value;
  return {
    commonName: attribute(c.subject, OID.commonName),
    email: typeof sanEmail === 'string' ? sanEmail : attribute(c.subject, OID.emailAddress),
    serial: normalizeSerialHex(Buffer.from(c.serialNumber.valueBlock.valueHexView).toString('hex') || '00'),
    signatureAlgorithm: ALGORITHMS[c.signatureAlgorithm.algorithmId] ?? c.signatureAlgorithm.algorithmId,
    issuerCommonName: attribute(c.issuer, OID.commonName),
    der: derOf(c),
  };
}

/** RFC 5652 §5.3 SignerIdentifier: issuer and serial, or subjectKeyIdentifier [0]. */
function findSigner(info: pkijs.SignerInfo, certs: pkijs.Certificate[]): pkijs.Certificate | null {
  const sid = info.sid as unknown;
  return (
    certs.find((c) => {
      if (sid instanceof pkijs.IssuerAndSerialNumber) {
        return c.issuer.isEqual(sid.issuer) && c.serialNumber.isEqual(sid.serialNumber);
      }
      const ski = c.extensions?.find((e) => e.extnID === OID.subjectKeyIdentifier)?.parsedValue;
      return (
        sid instanceof asn1js.Primitive &&
        ski instanceof asn1js.OctetString &&
        Buffer.from(ski.valueBlock.valueHexView).equals(Buffer.from(sid.valueBlock.valueHexView))
      );
    }) ?? null
  );
}

/** The token's imprint algorithm, so a TSA that hashed with SHA-384 or SHA-512 is checked too. */
function imprintAlgorithm(tokenDer: Uint8Array): VerifyTimeStampOptions['expectedImprintAlgorithm'] {
  try {
    const signed = signedDataOf(tokenDer).signedData;
    const tst = pkijs.TSTInfo.fromBER(signed.encapContentInfo.eContent!.getValue());
    return HASHES[tst.messageImprint.hashAlgorithm.algorithmId] ?? 'SHA-256';
  } catch {
    return 'SHA-256'; // verifyTimeStampToken will say what is wrong with it
  }
}

/** The signature-time-stamp attribute's token (RFC 3161 Appendix A), as embedded; null if none. */
function timestampToken(info: pkijs.SignerInfo): Uint8Array | null {
  const attr = info.unsignedAttrs?.attributes.find((a) => a.type === OID.signatureTimeStamp);
  // The token's bytes as embedded, not a re-encoding: its signature is over what the TSA wrote.
  return attr?.values[0] ? new Uint8Array((attr.values[0] as asn1js.BaseBlock).valueBeforeDecodeView) : null;
}

/** Verifies a token whose imprint must be the digest of `stamped`. */
async function checkTimestamp(
  tokenDer: Uint8Array,
  stamped: Uint8Array,
  certs: Buffer[],
  trustedRootsDer: Uint8Array[],
): Promise<CmsReport['timestamp']> {
  const algorithm = imprintAlgorithm(tokenDer) ?? 'SHA-256';
  const imprint = createHash(nodeHash(algorithm)).update(stamped).digest();
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
  signedBytes: Buffer | null;
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
  const signerCert = info ? findSigner(info, certs) : null;
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
  const stamped = opts.subFilter === 'ETSI.RFC3161' ? opts.signedBytes : signatureValue(info);
  report.timestamp =
    token && stamped ? await checkTimestamp(token, stamped, certDers, opts.timestampRootsDer ?? opts.trustedRootsDer) : null;
  const at = report.timestamp?.genTime ?? opts.claimedTime;
  report.trusted = at
    ? validateChain(report.signer!.der, { trustedRootsDer: opts.trustedRootsDer, untrustedDer: certDers, at: [at] }).ok
    : false;

  const failed = checkSignature(signed, info, signerCert, opts.signedBytes, opts.subFilter);
  return failed ? { ...report, rule: failed.rule, problem: failed.message } : { ...report, validSignature: true };
}

/** The reason the signature does not verify, or null when it does. */
function checkSignature(
  signed: pkijs.SignedData,
  info: pkijs.SignerInfo,
  cert: pkijs.Certificate,
  bytes: Buffer | null,
  subFilter: string,
): { rule: CmsRule; message: string } | null {
  const no = (rule: CmsRule, message: string) => ({ rule, message });
  if (!bytes) {
    return no('message-digest-mismatch', 'the /ByteRange does not lie inside the file');
  }
  const digest = DIGEST_ALGORITHMS[info.digestAlgorithm.algorithmId];
  if (!digest) {
    return no('digest-algorithm', `unsupported digest algorithm ${info.digestAlgorithm.algorithmId}`);
  }
  const hash = digest.name;
  const eContent = signed.encapContentInfo.eContent ? new Uint8Array(signed.encapContentInfo.eContent.getValue()) : null;
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
  if (subFilter === 'ETSI.RFC3161') {
    try {
      const tst = pkijs.TSTInfo.fromBER(own(eContent ?? new Uint8Array()));
      const alg = HASHES[tst.messageImprint.hashAlgorithm.algorithmId];
      if (
        !alg ||
        !createHash(nodeHash(alg)).update(bytes).digest().equals(Buffer.from(tst.messageImprint.hashedMessage.valueBlock.valueHexView))
      ) {
        return no('message-digest-mismatch', 'the time-stamp imprint is not the digest of the signed bytes');
      }
    } catch {
      return no('cms-malformed', 'the document time-stamp carries no readable TSTInfo');
    }
  }
  const content = eContent ?? bytes;
  let key: KeyObject;
  try {
    key = new X509Certificate(derOf(cert)).publicKey;
  } catch {
    return no('signer-certificate-missing', 'the signer certificate cannot be read');
  }
  try {
    const attrs = signedAttributes(info);
    const verifies = (data: Uint8Array): { rule: CmsRule; message: string } | null => {
      const outcome = verifySignerSignature(info, hash, data, key);
      // An algorithm this service cannot check proves nothing: the signature is not valid.
      return outcome.ok
        ? null
        : outcome.unsupported
          ? no('signature-algorithm', outcome.unsupported)
          : no('signature-value-invalid', outcome.reason ?? 'the signature value does not verify with the signer certificate');
    };
    if (!attrs) {
      // RFC 5652 §5.4: without signed attributes the signature is over the content itself.
      return verifies(content);
    }
    const digests = attrs.attributes.filter((a) => a.type === OID.messageDigest);
    const md = digests.length === 1 && digests[0].values.length === 1 ? digests[0].values[0] : null;
    if (!(md instanceof asn1js.OctetString) || !digestWith(digest, content).equals(Buffer.from(md.valueBlock.valueHexView))) {
      return no(
        'message-digest-mismatch',
        'the messageDigest attribute does not match the signed bytes: the document was changed after signing',
      );
    }
    // §5.4: the signature covers the DER of the signed attributes with the SET OF tag, not [0],
    // whatever encoding they were sent in.
    const failed = verifies(attrs.der);
    if (failed) {
      return failed;
    }
    return signingCertificateProblem(attrs.attributes, derOf(cert), subFilter === 'ETSI.CAdES.detached');
  } catch (err) {
    return no('cms-malformed', `the signature cannot be checked: ${(err as Error).message}`);
  }
}
