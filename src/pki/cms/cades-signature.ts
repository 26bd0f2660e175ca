// The CMS SignedData of a PAdES baseline signature made with the service's key (ETSI EN 319 142-1
// §6.3, over CAdES per EN 319 122-1; its DER joined from the bytes signed, cms-encoding.ts), built
// with pkijs rather than @libpdf/core because the library's CAdES builder is not exported and the
// only way to reach it, sign(), always adds the CMS signing-time attribute, which PAdES baseline
// signatures shall not carry (signed-attributes.ts).
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { type CachedCertificate, cachedCertificate, encodedCertificate } from '../certificate-cache.js';
import { validateChain } from '../chain.js';
import { nodeSigner, toArrayBuffer } from '../primitives.js';
import { detachedSignedData, encodeSignedData, signerInfoOf } from './cms-encoding.js';
import { OID } from './oids.js';
import { cadesSignedAttributes, messageDigestIs } from './signed-attributes.js';
import { type SignatureOutcome, signedAttributes, verifySignerSignature } from './signer-info.js';
import { CmsSignError, signingFailed } from './sign-error.js';

export interface CmsSigner {
  certificateDer: Uint8Array;
  privateKey: CryptoKey;
  /** Leaf first, then the CAs. */
  chainDer: Uint8Array[];
}

/** RFC 5280 §4.2.1.3: a key certified without digitalSignature/nonRepudiation must not sign. */
export function checkKeyUsage(cert: pkijs.Certificate): void {
  const ext = cert.extensions?.find((e) => e.extnID === OID.keyUsage);
  if (!ext) {
    return;
  }
  const bits = (ext.parsedValue as asn1js.BitString).valueBlock.valueHexView;
  const first = bits[0] ?? 0;
  if ((first & 0x80) === 0 && (first & 0x40) === 0) {
    signingFailed('the signer certificate allows neither digitalSignature nor nonRepudiation');
  }
}

/** The key must be one WebCrypto and pkijs can sign SHA-256 CMS with. */
function checkKey(key: CryptoKey): void {
  const alg = key.algorithm as { name: string; hash?: { name: string } };
  if (!['RSASSA-PKCS1-v1_5', 'RSA-PSS', 'ECDSA'].includes(alg.name)) {
    signingFailed(`unsupported key algorithm ${alg.name}`);
  }
  // An RSA CryptoKey is bound to one hash; it must be the SHA-256 named in the SignerInfo.
  if (alg.hash && alg.hash.name !== 'SHA-256') {
    signingFailed(`the RSA key is bound to ${alg.hash.name}; SHA-256 is required`);
  }
  if (!key.usages.includes('sign')) {
    signingFailed('the private key is not usable for signing');
  }
}

/** The signer's certificate, and the others of its chain, parsed. */
function signerCertificates(signer: CmsSigner): { leafEntry: CachedCertificate; leaf: pkijs.Certificate; others: pkijs.Certificate[] } {
  try {
    const leafEntry = cachedCertificate(signer.certificateDer);
    const chain = signer.chainDer.map((der) => cachedCertificate(der));
    return { leafEntry, leaf: leafEntry.pkijs, others: chain.filter((c) => !c.der.equals(leafEntry.der)).map((c) => c.pkijs) };
  } catch (err) {
    return signingFailed(`a signer certificate cannot be parsed: ${(err as Error).message}`);
  }
}

/** The signer must chain to a trusted root at the signing time. */
function checkSignerPath(signer: CmsSigner, trustedRootsDer: Uint8Array[], at: Date): void {
  const path = validateChain(signer.certificateDer, { trustedRootsDer, untrustedDer: signer.chainDer, at: [at] });
  if (path.ok) {
    return;
  }
  const { problem } = path;
  // A certificate not yet valid at the signing time means the clock is behind the one that made
  // the PKI (a backup restored on a machine whose clock is wrong): say so, not "untrusted chain".
  if (problem.kind === 'not_yet_valid') {
    throw new CmsSignError(
      'CLOCK_BEHIND',
      `the clock says ${problem.at.toISOString()}, earlier than the start of validity of ${problem.subject} ` +
        `(${problem.notBefore.toISOString()}): set the machine's clock right`,
    );
  }
  signingFailed(`the signer certificate does not chain to a trusted root: ${problem.message}`);
}

/**
 * Checks a new signature from its own DER, as a validator will see it: the message digest it
 * carries must be the content's, and the signature over the encoded signed attributes must verify
 * with the certificate's key (a key that is not the certificate's would give a signature no one can
 * verify). This is what SignedData.verify() does, except that it hashes the content again (10 MB
 * for a large file, after two copies of it) where the digest is already known. The signature is
 * checked by node:crypto at once (signer-info.ts, the verifier's own check), not through a
 * WebCrypto job on the thread pool. `cms` is what goes into the PDF (encodeCms adds the time-stamp
 * token to these very bytes).
 */
function checkOwnSignature(cms: Uint8Array<ArrayBuffer>, leaf: CachedCertificate, contentDigest: Uint8Array): void {
  let outcome: SignatureOutcome;
  try {
    const reparsed = signerInfoOf(cms);
    const signed = signedAttributes(reparsed);
    if (!signed || !messageDigestIs(signed.attributes, contentDigest)) {
      throw new CmsSignError('SIGNING_FAILED', "the new signature does not carry the content's digest");
    }
    outcome = verifySignerSignature(reparsed, 'SHA-256', signed.der, leaf.x509.publicKey);
  } catch (err) {
    if (err instanceof CmsSignError) {
      throw err;
    }
    throw new CmsSignError('SIGNING_FAILED', `the new signature does not verify: ${(err as Error).message}`);
  }
  if (!outcome.ok) {
    signingFailed("the new signature does not verify with the certificate: is the key the certificate's?");
  }
}

/** What node:crypto signed: the DER SET OF signed attributes, and the signature algorithm and value. */
interface AttributesSignature {
  signedAttributes: Uint8Array;
  signatureAlgorithm: Uint8Array;
  signature: Uint8Array;
}

/**
 * Signs the SignerInfo's signed attributes as SignedData.sign() does (RFC 5652 §5.4: the DER SET
 * OF, tag 0x31; digest and signature algorithms as pkijs writes them), with node:crypto at once
 * where the key allows it (nodeSigner: what it signed is returned), else through pkijs's WebCrypto
 * engine (undefined).
 */
async function signAttributes(signedData: pkijs.SignedData, key: CryptoKey): Promise<AttributesSignature | undefined> {
  const signerInfo = signedData.signerInfos[0];
  const toBeSigned = new Uint8Array(signerInfo.signedAttrs!.toSchema().toBER(false));
  toBeSigned[0] = 0x31;
  const signer = nodeSigner(key);
  if (!signer) {
    await signedData.sign(key, 0, 'SHA-256');
    return undefined;
  }
  const sha256 = () => new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256, algorithmParams: new asn1js.Null() });
  const signature = signer.sign(toBeSigned);
  signedData.digestAlgorithms = [sha256()];
  signerInfo.digestAlgorithm = sha256();
  signerInfo.signatureAlgorithm = signer.algorithm;
  signerInfo.signature = new asn1js.OctetString({ valueHex: toArrayBuffer(signature) });
  return { signedAttributes: toBeSigned, signatureAlgorithm: new Uint8Array(signer.algorithm.toSchema().toBER(false)), signature };
}

/**
 * Signs `contentDigest` (SHA-256 of the /ByteRange bytes) as a detached CAdES signature with
 * content-type, message-digest and signing-certificate-v2 signed attributes, after checking that
 * the signer chains to a trusted root at `at`; then verifies the result from its own DER, which
 * is `cms` (ContentInfo, without a time stamp: encodeCms(signedData, cms) adds it). Throws CmsSignError.
 */
export async function createCadesSignature(opts: {
  signer: CmsSigner;
  contentDigest: Uint8Array;
  trustedRootsDer: Uint8Array[];
  at: Date;
}): Promise<{ signedData: pkijs.SignedData; signatureValue: Uint8Array; cms: Uint8Array<ArrayBuffer> }> {
  const { leafEntry, leaf, others } = signerCertificates(opts.signer);
  checkKey(opts.signer.privateKey);
  checkKeyUsage(leaf);
  checkSignerPath(opts.signer, opts.trustedRootsDer, opts.at);
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: leaf.issuer, serialNumber: leaf.serialNumber }),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes: cadesSignedAttributes(leaf, opts.contentDigest) }),
  });
  const signedData = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }), // detached: no eContent
    certificates: [leaf, ...others],
    signerInfos: [signerInfo],
  });
  let signed: AttributesSignature | undefined;
  try {
    signed = await signAttributes(signedData, opts.signer.privateKey);
  } catch (err) {
    signingFailed(`the signing key refused to sign: ${(err as Error).message}`);
  }
  let cms: Uint8Array<ArrayBuffer>;
  try {
    // The same SignedData as pkijs would encode, written from the bytes just signed (cms-encoding.ts).
    cms = signed
      ? detachedSignedData({ certificatesDer: [leafEntry.der, ...others.map(encodedCertificate)], ...signed })
      : encodeSignedData(signedData);
  } catch (err) {
    return signingFailed(`the new signature cannot be encoded: ${(err as Error).message}`);
  }
  checkOwnSignature(cms, leafEntry, opts.contentDigest);
  return { signedData, signatureValue: new Uint8Array(signerInfo.signature.valueBlock.valueHexView), cms };
}
