// What differs between the authorities whose signers sign with a certificate and key of their own
// (SAT e.firma, CERT): how the certificate is checked against the sticker's data, how the signature's
// appearance names it, and what the history keeps. The two requests around the browser (prepare,
// finish) are the same for all of them (prepare-own-signature.ts, finish-own-signature.ts).
import type { Deps } from '../../deps.js';
import type { SatPreparation } from '../../../store/sat-repo.js';
import type { SigningSigner } from '../../../store/signing-repo.js';

/** A certificate that passed its authority's checks. */
export interface CheckedOwnCertificate {
  /** The holder's name, for the signature's appearance. */
  name: string;
  /** Canonical lowercase hex. */
  serialHex: string;
  /** The issuing CAs up to the trust anchor, for the CMS. */
  chainDer: Buffer[];
  /** What the responder said; unknown when none could be asked or none answered. */
  status: 'good' | 'unknown';
  /** The responder's answer (DER) when it gave one, kept for the universal rendition. */
  ocspResponseDer?: Buffer;
  /** The SAT's RFC and certificate number (null for other authorities). */
  rfc: string | null;
  certificateNumber: string | null;
}

export interface OwnCertificateAuthority<C extends CheckedOwnCertificate> {
  authority: 'SAT' | 'CERT' | 'CSC';
  /** CSC: the remote signing provider whose credential signs, kept for the report. */
  provider?: string;
  /** The signer's words for the certificate, in errors ("e.firma", "certificate"). */
  noun: string;
  /** Every check of the certificate against the signer, before anything is prepared. */
  check(deps: Pick<Deps, 'config' | 'clock' | 'fetchPkiData'>, der: Buffer, signer: SigningSigner): Promise<C>;
  /** The path to a trust anchor at `at` (re-checked at finish), or the authority's refusal. */
  chain(deps: Pick<Deps, 'config'>, der: Uint8Array, at: Date): Buffer[];
  /** The appearance's authority line and the signature's /Reason. */
  legend(checked: C, language: 'es' | 'en'): { authorityLabel: string; reason: string };
  /** The error for a signature value that does not verify with the certificate. */
  signatureInvalid(): Error;
  /** The signer row's signature_type. */
  signatureType: 'efirma' | 'certificate';
  /** What the history entry of the signature keeps about the certificate. */
  historyDetails(p: SatPreparation): Record<string, unknown>;
}
