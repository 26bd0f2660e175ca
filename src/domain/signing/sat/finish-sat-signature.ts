// POST /sign/api/{token}/sat/finish: the second step of a signature with the signer's own SAT
// e.firma (own-certificate/finish-own-signature.ts with the SAT's checks, sat-authority.ts).
import type { Deps } from '../../deps.js';
import type { SatFinishBody } from '../../../schemas/sat-signing.js';
import type { SignResult } from '../../../schemas/signing.js';
import { finishOwnSignature, type OwnFinishInput, readSignatureValue } from '../own-certificate/finish-own-signature.js';
import { SAT_AUTHORITY } from './sat-authority.js';

export { readSignatureValue };
export type SatFinishInput = OwnFinishInput;

/** POST /sign/api/{token}/sat/finish: the body read, then the prepared signature finished. */
export async function finishSatSignature(deps: Deps, o: { token: string; body: SatFinishBody; ip?: string }): Promise<SignResult> {
  const signature = readSignatureValue(o.body.signature);
  return finishWith(deps, { token: o.token, preparationId: o.body.preparation_id, signature, ip: o.ip });
}

/** Finishes with a signature value already read (a set finishes one document at a time). */
export async function finishWith(deps: Deps, input: SatFinishInput): Promise<SignResult> {
  return finishOwnSignature(deps, input, SAT_AUTHORITY);
}
