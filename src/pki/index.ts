// The PKI library's public surface, for http/ routes and domain/ use cases. Pure: the clock, the
// certificate store (OCSP lookup, CRL entries) and storage of the material are the caller's.
export { PkiError, type PkiErrorCode } from './errors.js';
export { certificatesToPem, derToPem, pemBlocks, pemCertificates, pemToDer, type PemBlock } from './pem.js';
export { derElement, generateKeyPair, normalizeSerialHex, randomSerialHex, toArrayBuffer } from './primitives.js';
export { cachedCertificate, encodedCertificate, type CachedCertificate } from './certificate-cache.js';
export { validateChain, type ChainOptions, type ChainProblem, type ChainResult } from './chain.js';
export { generateServicePki, importPki, importPkiIdentity, type GenerateServicePkiOptions } from './material.js';
export type { KeyedCertificate, LoadedPki, PkiIdentity, PkiMaterial } from './material-types.js';
export { pkiUrls, type PkiUrls } from './pki-urls.js';
export {
  OCSP_RENEWAL_DAYS,
  certificateNotAfter,
  issueOcspResponderCertificate,
  issueTsaCertificate,
  ocspRenewalDue,
  renewOcspResponder,
} from './service-certificates.js';
export { checkMaterial } from './material-checks.js';
export {
  loadPkiFromPem,
  loadPkiFromPkcs12,
  readPkcs12,
  type CompleteMaterialOptions,
  type OperatorPemInput,
  type OperatorPkcs12Input,
  type Pkcs12Input,
} from './operator-material.js';
export { openPkiMaterial, sealPkiMaterial, type SealedPkiMaterial } from './sealed-material.js';
export {
  KeyPairPool,
  SignerKeyPools,
  SIGNER_KEY_POOL_SIZE,
  SIGNER_KEY_REFILL_DELAY_MS,
  generateSignerKeyPair,
  type KeyPairPoolOptions,
  type SignerKeyPoolsOptions,
  type SignerKeySource,
} from './key-pool.js';
export { issueSignerCertificate, type IssueSignerCertificateOptions, type SignerCertificate } from './signer-certificate.js';
export {
  FailInfo,
  TSA_HASHES,
  createTimeStampRejection,
  createTimeStampReply,
  createTimeStampToken,
  type TimeStampOptions,
  type TimeStampSubject,
} from './tsa.js';
export { timeStampTokenFromReply, verifyTimeStampReply } from './tsa-verify.js';
export {
  createOcspErrorResponse,
  createOcspRequest,
  createOcspResponse,
  decodeOcspGetRequest,
  type CreateOcspRequestOptions,
  type CreateOcspResponseOptions,
  type OcspCertStatus,
  type OcspErrorStatus,
} from './ocsp.js';
export { createCrl, type CreateCrlOptions, type RevokedEntry } from './crl.js';
export {
  certificateUrls,
  checkCrl,
  checkOcspResponse,
  crlRevokes,
  hasOcspNoCheck,
  isSelfIssued,
  type CheckedCrl,
  type CheckedOcsp,
} from './revocation-check.js';
export { berElementLength, berToDer } from './ber.js';
// CMS SignedData: signing, the SAT path, time-stamp tokens and the verifier's checks (cms/index.ts).
export {
  DIGEST_ALGORITHMS,
  SIGNATURE_ALGORITHMS,
  digestWith,
  readCmsMaterial,
  signatureValue,
  signedAttributes,
  signedDataOf,
  verifySignerSignature,
  verifyTimeStampToken,
  type CmsMaterial,
  type DigestAlgorithm,
  type SignatureOutcome,
  type SignedAttributes,
  type VerifiedTimeStamp,
  type VerifyTimeStampOptions,
} from './cms/index.js';
