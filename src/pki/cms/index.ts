// CMS SignedData, built and checked in one place (RFC 5652, CAdES per ETSI EN 319 122-1, RFC 3161
// tokens): the service's PAdES signatures, the signatures whose key stays with the signer (SAT),
// the service's time-stamp tokens, and the verifier's checks of a PDF signature's CMS and of every
// time-stamp token. One OID table (oids.ts) and one place for the signed attributes
// (signed-attributes.ts), so a fix to a check reaches signing, the SAT path and the verifier at once.
export { OID, hashByOid, oidByHash, nodeHashName, type HashName } from './oids.js';
export { CmsSignError, type CmsSignProblem } from './sign-error.js';
export { cadesSignedAttributes, signingCertificateProblem } from './signed-attributes.js';
export { checkKeyUsage, createCadesSignature, type CmsSigner } from './cades-signature.js';
export { addSignatureTimestamp, encodeCms } from './cms-encoding.js';
export {
  checkExternalSigner,
  externalSignedAttributes,
  externalSignedData,
  type ExternalSignedDataOptions,
} from './external-signed-data.js';
export {
  PSS_SALT_LENGTH,
  externalScheme,
  p1363ToDer,
  pssParamsDer,
  schemeOfKey,
  type ExternalScheme,
  type ExternalSchemeName,
} from './external-scheme.js';
export { analyzeCms, type CmsReport, type CmsRule } from './signature-cms-check.js';
export { summarizeCertificate, type CertificateSummary } from './certificate-summary.js';
export { verifyTimeStampToken, type VerifiedTimeStamp, type VerifyTimeStampOptions } from './timestamp-token.js';
export { readTimeStampTokenInfo, type TimeStampTokenInfo } from './timestamp-token-info.js';
export { readCmsMaterial, type CmsMaterial } from './cms-material.js';
export {
  DIGEST_ALGORITHMS,
  SIGNATURE_ALGORITHMS,
  digestWith,
  identifiesCertificate,
  signatureValue,
  signedAttributes,
  signedDataOf,
  verifySignerSignature,
  type DigestAlgorithm,
  type SignatureOutcome,
  type SignedAttributes,
} from './signer-info.js';
