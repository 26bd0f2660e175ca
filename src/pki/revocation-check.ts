// Checks of revocation data before it goes into a document's long-term validation data
// (EN 319 142-1 §5.4): an OCSP response (RFC 6960) or a CRL (RFC 5280 §5) is embedded only when it
// is about the certificate, signed by whom may answer for it, and says the certificate is not
// revoked. Also the addresses a certificate names for that data (AIA, CRL distribution points).
// Pure: the bytes come from the caller, who fetched them; no clock is needed to check a signature.
import { createHash, verify as verifySignature } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { PkiError } from './errors.js';
import { cachedCertificate } from './certificate-cache.js';
import { isIssuedBy } from './material-checks.js';
import { digest, toArrayBuffer } from './primitives.js';
import { OID, RSA_AND_ECDSA_SIGNATURE_HASH, hashByOid, type HashName } from './cms/oids.js';

function fail(message: string): never {
  throw new PkiError('revocation_invalid', message);
}

// Parsed once per certificate (certificate-cache.ts): one build asks about the same few
// certificates dozens of times, and asn1js takes about half a millisecond per parse.
const parse = (der: Uint8Array) => cachedCertificate(der).pkijs;
const x509Of = (der: Uint8Array) => cachedCertificate(der).x509;

function extensionValue(cert: pkijs.Certificate, oid: string): asn1js.BaseBlock | undefined {
  const e = cert.extensions?.find((x) => x.extnID === oid);
  return e ? asn1js.fromBER(e.extnValue.valueBlock.valueHexView).result : undefined;
}

/** uniformResourceIdentifier [6] IA5String of a GeneralName, when it is one. */
function uri(name: asn1js.BaseBlock | undefined): string | undefined {
  if (name && name.idBlock.tagClass === 3 && name.idBlock.tagNumber === 6 && name instanceof asn1js.Primitive) {
    return Buffer.from(name.valueBlock.valueHexView).toString('latin1');
  }
  return undefined;
}

const seq = (b: asn1js.BaseBlock | undefined): asn1js.BaseBlock[] =>
  b instanceof asn1js.Constructed || b instanceof asn1js.Sequence ? (b.valueBlock.value as asn1js.BaseBlock[]) : [];

/** The http(s) addresses a certificate gives for its OCSP responder, its issuer and its CRLs. */
export function certificateUrls(der: Uint8Array): { ocsp: string[]; caIssuers: string[]; crl: string[] } {
  const cert = parse(der);
  const out = { ocsp: [] as string[], caIssuers: [] as string[], crl: [] as string[] };
  // AuthorityInfoAccessSyntax ::= SEQUENCE OF AccessDescription { accessMethod, accessLocation }
  for (const d of seq(extensionValue(cert, OID.authorityInfoAccess))) {
    const [method, location] = seq(d);
    const target = method instanceof asn1js.ObjectIdentifier ? method.valueBlock.toString() : '';
    const u = uri(location);
    if (u && target === OID.adOcsp) {
      out.ocsp.push(u);
    } else if (u && target === OID.adCaIssuers) {
      out.caIssuers.push(u);
    }
  }
  // CRLDistributionPoints ::= SEQUENCE OF DistributionPoint { distributionPoint [0] { fullName [0] GeneralNames } }
  for (const dp of seq(extensionValue(cert, OID.crlDistributionPoints))) {
    const point = seq(dp).find((b) => b.idBlock.tagClass === 3 && b.idBlock.tagNumber === 0);
    const fullName = seq(point).find((b) => b.idBlock.tagClass === 3 && b.idBlock.tagNumber === 0);
    for (const name of seq(fullName)) {
      const u = uri(name);
      if (u) {
        out.crl.push(u);
      }
    }
  }
  const web = (u: string) => /^https?:\/\//i.test(u);
  return { ocsp: out.ocsp.filter(web), caIssuers: out.caIssuers.filter(web), crl: out.crl.filter(web) };
}

/** RFC 6960 §4.2.2.2.1: a responder certificate with id-pkix-ocsp-nocheck needs no revocation data of its own. */
export function hasOcspNoCheck(der: Uint8Array): boolean {
  return parse(der).extensions?.some((e) => e.extnID === OID.ocspNoCheck) ?? false;
}

/** A self-issued certificate (a root): nobody above it answers for its revocation. */
export function isSelfIssued(der: Uint8Array): boolean {
  const c = x509Of(der);
  return c.subject === c.issuer && isIssuedBy(c, c);
}

export interface CheckedOcsp {
  certStatus: 'good' | 'revoked' | 'unknown';
  thisUpdate: Date;
  nextUpdate?: Date;
  producedAt: Date;
  /** The responder certificates the response carries (they belong in the DSS too). */
  responderCertificatesDer: Buffer[];
}

function keyHash(hash: HashName, cert: pkijs.Certificate): Buffer {
  return digest(hash, cert.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView);
}

/**
 * Checks a DER OCSPResponse about `certificateDer` (issued by `issuerDer`): successful, basic, a
 * SingleResponse for that certificate, signed by the issuer or by a responder the issuer delegated
 * to (id-kp-OCSPSigning, RFC 6960 §4.2.2.2). Returns what it says; throws PkiError otherwise.
 */
export function checkOcspResponse(der: Uint8Array, o: { certificateDer: Uint8Array; issuerDer: Uint8Array }): CheckedOcsp {
  let basic: pkijs.BasicOCSPResponse;
  try {
    const response = pkijs.OCSPResponse.fromBER(toArrayBuffer(der));
    const status = response.responseStatus.valueBlock.valueDec;
    if (status !== 0) {
      fail(`the OCSP responder answered with responseStatus ${status}, not successful`);
    }
    if (response.responseBytes?.responseType !== OID.ocspBasic) {
      fail('the OCSP response is not a basic response');
    }
    basic = pkijs.BasicOCSPResponse.fromBER(toArrayBuffer(response.responseBytes.response.valueBlock.valueHexView));
  } catch (err) {
    throw err instanceof PkiError ? err : new PkiError('revocation_invalid', 'the OCSP response does not parse');
  }
  const cert = parse(o.certificateDer);
  const issuer = parse(o.issuerDer);
  const single = basic.tbsResponseData.responses.find((r) => {
    const hash = hashByOid(r.certID.hashAlgorithm.algorithmId);
    return (
      hash !== undefined &&
      r.certID.serialNumber.isEqual(cert.serialNumber) &&
      Buffer.from(r.certID.issuerKeyHash.valueBlock.valueHexView).equals(keyHash(hash, issuer)) &&
      Buffer.from(r.certID.issuerNameHash.valueBlock.valueHexView).equals(
        digest(hash, new Uint8Array(issuer.subject.toSchema().toBER(false))),
      )
    );
  });
  if (!single) {
    fail('the OCSP response is not about this certificate');
  }
  const responderCertificatesDer = (basic.certs ?? []).map((c) => Buffer.from(c.toSchema().toBER(false)));
  const responder = findResponder(basic, [Buffer.from(o.issuerDer), ...responderCertificatesDer]);
  if (!responder) {
    fail('the OCSP response does not carry the certificate that signed it');
  }
  const responderX509 = x509Of(responder);
  const issuerX509 = x509Of(o.issuerDer);
  const delegated = isIssuedBy(responderX509, issuerX509) && extendedKeyUsages(responder).includes(OID.kpOcspSigning);
  if (!responderX509.raw.equals(issuerX509.raw) && !delegated) {
    fail('the OCSP response is signed by a certificate the issuer did not authorise to answer for it');
  }
  const hash =
    RSA_AND_ECDSA_SIGNATURE_HASH[basic.signatureAlgorithm.algorithmId] ??
    fail(`unsupported OCSP signature algorithm ${basic.signatureAlgorithm.algorithmId}`);
  const signature = Buffer.from(basic.signature.valueBlock.valueHexView);
  if (!verifySignature(hash, basic.tbsResponseData.tbsView, responderX509.publicKey, signature)) {
    fail('the OCSP response signature does not verify');
  }
  const tag = (single.certStatus as asn1js.BaseBlock).idBlock.tagNumber;
  return {
    certStatus: tag === 0 ? 'good' : tag === 1 ? 'revoked' : 'unknown',
    thisUpdate: single.thisUpdate,
    nextUpdate: single.nextUpdate,
    producedAt: basic.tbsResponseData.producedAt,
    responderCertificatesDer,
  };
}

function extendedKeyUsages(der: Uint8Array): string[] {
  return seq(extensionValue(parse(der), OID.extKeyUsage))
    .filter((b): b is asn1js.ObjectIdentifier => b instanceof asn1js.ObjectIdentifier)
    .map((b) => b.valueBlock.toString());
}

/** RFC 6960 §4.2.2.3: ResponderID byName [1] or byKey [2] (SHA-1 of the responder's public key). */
function findResponder(basic: pkijs.BasicOCSPResponse, candidates: Buffer[]): Buffer | undefined {
  const id = basic.tbsResponseData.responderID as unknown;
  return candidates.find((der) => {
    const c = parse(der);
    if (id instanceof pkijs.RelativeDistinguishedNames) {
      return c.subject.isEqual(id);
    }
    if (id instanceof asn1js.OctetString) {
      return createHash('sha1')
        .update(c.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView)
        .digest()
        .equals(Buffer.from(id.valueBlock.valueHexView));
    }
    return false;
  });
}

export interface CheckedCrl {
  thisUpdate: Date;
  nextUpdate?: Date;
  /** Serial numbers it lists, canonical lower-case hex. */
  revokedSerials: Set<string>;
}

const serialHex = (i: asn1js.Integer) =>
  Buffer.from(i.valueBlock.valueHexView)
    .toString('hex')
    .replace(/^(00)+(?=.)/, '');

/**
 * Checks a DER CRL: issued and signed by `issuerDer` (RFC 5280 §6.3.3 (f), (g)). Returns what it
 * lists, for crlRevokes(); throws PkiError otherwise.
 */
export function checkCrl(der: Uint8Array, o: { issuerDer: Uint8Array }): CheckedCrl {
  let crl: pkijs.CertificateRevocationList;
  try {
    crl = pkijs.CertificateRevocationList.fromBER(toArrayBuffer(der));
  } catch {
    fail('the CRL does not parse');
  }
  const issuer = parse(o.issuerDer);
  if (!crl.issuer.isEqual(issuer.subject)) {
    fail('the CRL was issued by another CA');
  }
  const hash =
    RSA_AND_ECDSA_SIGNATURE_HASH[crl.signatureAlgorithm.algorithmId] ??
    fail(`unsupported CRL signature algorithm ${crl.signatureAlgorithm.algorithmId}`);
  if (!verifySignature(hash, crl.tbsView, x509Of(o.issuerDer).publicKey, Buffer.from(crl.signatureValue.valueBlock.valueHexView))) {
    fail('the CRL signature does not verify');
  }
  return {
    thisUpdate: crl.thisUpdate.value,
    nextUpdate: crl.nextUpdate?.value,
    revokedSerials: new Set((crl.revokedCertificates ?? []).map((r) => serialHex(r.userCertificate))),
  };
}

/** Whether a checked CRL lists the certificate (same issuer assumed: the caller chose the CRL by it). */
export function crlRevokes(crl: CheckedCrl, certificateDer: Uint8Array): boolean {
  return crl.revokedSerials.has(serialHex(parse(certificateDer).serialNumber));
}
