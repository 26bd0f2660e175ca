// POST /sign/api/{token}/sat/prepare: the first step of a signature with the signer's own SAT
// e.firma (own-certificate/prepare-own-signature.ts with the SAT's checks, sat-authority.ts), and
// the answer that shows the signer their e.firma's RFC, CURP and certificate number.
import type { Deps } from '../../deps.js';
import type { SatPrepareBody, SatPrepared } from '../../../schemas/sat-signing.js';
import { type OwnPrepareInput, prepareOwnSignature, readCertificate } from '../own-certificate/prepare-own-signature.js';
import { type CheckedSat, SAT_AUTHORITY } from './sat-authority.js';

export { readCertificate };
export type SatPrepareInput = OwnPrepareInput;

/** POST /sign/api/{token}/sat/prepare: the body read, then the signature prepared. */
export async function prepareSatSignature(deps: Deps, o: { token: string; body: SatPrepareBody }): Promise<SatPrepared> {
  return prepareWith(deps, {
    token: o.token,
    certificate: readCertificate(o.body.certificate),
    language: o.body.language,
    fieldValues: o.body.field_values,
  });
}

/** Prepares with a certificate already read (a set prepares one document at a time). */
export async function prepareWith(deps: Deps, input: SatPrepareInput): Promise<SatPrepared> {
  const p = await prepareOwnSignature(deps, input, SAT_AUTHORITY);
  return preparedAnswer(p.id, p.signedAttributes, p.checked, p.expiresAt);
}

function preparedAnswer(id: string, signedAttributes: Buffer, checked: CheckedSat, expiresAt: Date): SatPrepared {
  const { cert } = checked;
  return {
    preparation_id: id,
    signed_attributes: signedAttributes.toString('base64'),
    signature_algorithm: 'RSASSA-PKCS1-v1_5' as const,
    hash: 'SHA-256' as const,
    expires_at: expiresAt.toISOString(),
    certificate: {
      name: cert.name,
      rfc: cert.rfc,
      curp: cert.curp,
      serial: cert.serialHex,
      certificate_number: cert.certificateNumber,
      valid_from: cert.notBefore.toISOString(),
      valid_to: cert.notAfter.toISOString(),
      status: checked.status,
    },
  };
}
