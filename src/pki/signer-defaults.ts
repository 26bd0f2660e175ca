// Defaults of the one-time signer certificates, apart from the code that issues them so the
// configuration can name them without loading the PKI.

/**
 * Five years: how long a signed contract is commonly kept at hand and opened again (the general
 * limitation period for contract claims in several of the service's markets), and the life of the
 * built-in TSA certificate, so a signature's pieces expire together. Beyond it, the document's
 * universal (B-LTA) rendition carries the proof.
 */
export const SIGNER_CERT_DAYS = 1826;

/** The key types of signer certificates (see signer-certificate.ts for the choice). */
export const SIGNER_KEY_ALGORITHMS = ['rsa-2048', 'ecdsa-p256'] as const;
export type SignerKeyAlgorithm = (typeof SIGNER_KEY_ALGORITHMS)[number];

/** The signer key type when neither the account nor the operator chose one. */
export const DEFAULT_SIGNER_KEY: SignerKeyAlgorithm = 'rsa-2048';

/**
 * Pairs kept ready per key type. Eight covers a set of documents signed in one visit; refilling
 * them takes one core for about 1.5 s on a small server (RSA-2048). SELLO_SIGNER_KEY_POOL changes it.
 */
export const SIGNER_KEY_POOL_SIZE = 8;

/** Deepest pool an operator may ask for: RSA-2048 pairs are a few kilobytes each in memory. */
export const SIGNER_KEY_POOL_MAX = 1024;

/** Generations run at once by a refill (SELLO_SIGNER_KEY_THREADS); libuv's pool has 4 threads. */
export const SIGNER_KEY_THREADS = 1;
export const SIGNER_KEY_THREADS_MAX = 4;
