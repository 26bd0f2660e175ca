// Errors of the PKI library. pki/ is pure and knows nothing of HTTP: callers map codes to their
// own errors (domain/ to AppError). Protocol-level refusals (a TSA rejection, an OCSP
// malformedRequest) are not errors: they are answers, returned as DER.

/** Why a PKI operation failed. */
export type PkiErrorCode =
  /** A PEM text has no usable block of the expected kind. */
  | 'bad_pem'
  /** A DER structure (certificate, key, PKCS#12, token) does not parse. */
  | 'bad_der'
  /** A private key of a kind the service does not sign with (RSA-PSS, Ed25519, ...). */
  | 'unsupported_key'
  /** Operator-provided material is inconsistent: key and certificate differ, wrong usages, no root. */
  | 'bad_material'
  /** The PKCS#12 password is wrong or its integrity check fails. */
  | 'bad_password'
  /** A caller-supplied argument is out of range (serial too short, unknown reason code, ...). */
  | 'bad_argument'
  /** The operation needs a key the material does not hold (the root key of an operator PKI). */
  | 'missing_key'
  /** A time-stamp token or reply fails verification; the message says which check. */
  | 'timestamp_invalid'
  /** An OCSP response or CRL cannot be relied on (unsigned by the issuer, not about the certificate, revoked). */
  | 'revocation_invalid'
  /** A service key in a PKCS#11 token cannot be reached (token gone, logged out, key removed). */
  | 'key_unavailable';

export class PkiError extends Error {
  constructor(
    readonly code: PkiErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'PkiError';
  }
}
