// Defaults of the one-time signer certificates, apart from the code that issues them so the
// configuration can name them without loading the PKI.

/**
 * Five years: how long a signed contract is commonly kept at hand and opened again (the general
 * limitation period for contract claims in several of the service's markets), and the life of the
 * built-in TSA certificate, so a signature's pieces expire together. Beyond it, the document's
 * universal (B-LTA) rendition carries the proof.
 */
export const SIGNER_CERT_DAYS = 1826;

/** The signer key type (see signer-certificate.ts for the choice). */
export const DEFAULT_SIGNER_KEY: 'rsa-2048' | 'ecdsa-p256' = 'rsa-2048';
