// The PKI material's shapes: storable (PKCS#8 keys, to be sealed) and loaded (non-extractable keys).
import type * as pkijs from 'pkijs';
import type { ServiceKey, StoredKey } from './service-key.js';

/**
 * A certificate with its private key, as stored: DER certificate and either the PKCS#8 DER key
 * (seal it!) or the label of the key in the PKCS#11 token.
 */
export type KeyedCertificate = { certificateDer: Buffer } & StoredKey;

/** Everything the PKI needs, in storable form. Keys are plaintext PKCS#8: seal before storing. */
export interface PkiMaterial {
  /** The trust anchor. Its key is absent when an operator keeps their root offline. */
  root: { certificateDer: Buffer; privateKeyPkcs8?: Buffer; tokenLabel?: string };
  /** Issues signer certificates, signs the CRL; its key signs OCSP only through the responder. */
  issuing: KeyedCertificate;
  /** Certificates between the issuing CA and the root, nearest first (empty for a generated PKI). */
  intermediatesDer: Buffer[];
  /** The time-stamping unit (RFC 3161 §2.3: critical EKU timeStamping only). */
  tsa: KeyedCertificate;
  /** The delegated OCSP responder (RFC 6960 §4.2.2.2: issued by the issuing CA, id-kp-OCSPSigning). */
  ocsp: KeyedCertificate;
  /** True when the operator supplied the OCSP responder certificate: the service never replaces it. */
  ocspFromOperator?: boolean;
}

/** A certificate ready to use: DER, parsed, and its key (non-extractable in software, or in the token). */
export interface PkiIdentity {
  certificateDer: Buffer;
  certificate: pkijs.Certificate;
  key: ServiceKey;
}

/** The PKI in memory, from importPki. Keys are service keys: non-extractable in software, or in a token. */
export interface LoadedPki {
  root: { certificateDer: Buffer; certificate: pkijs.Certificate; key?: ServiceKey };
  issuing: PkiIdentity;
  intermediatesDer: Buffer[];
  tsa: PkiIdentity;
  ocsp: PkiIdentity;
  /** [issuing, ...intermediates, root]: the chain above every certificate the issuing CA signs. */
  chainDer: Buffer[];
}
