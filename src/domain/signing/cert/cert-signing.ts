// POST /sign/api/{token}/certificate/prepare and /finish: a CERT signer signs with their own
// certificate and key, in the two requests around the browser every own-certificate signature makes
// (own-certificate/), with CERT's checks (cert-authority.ts).
import type { Deps } from '../../deps.js';
import type { CertFinishBody, CertPrepareBody, CertPrepared } from '../../../schemas/cert-signing.js';
import type { SignResult } from '../../../schemas/signing.js';
import { finishOwnSignature, readSignatureValue } from '../own-certificate/finish-own-signature.js';
import { prepareOwnSignature, readCertificate } from '../own-certificate/prepare-own-signature.js';
import { CERT_AUTHORITY } from './cert-authority.js';

export async function prepareCertSignature(deps: Deps, o: { token: string; body: CertPrepareBody }): Promise<CertPrepared> {
  const p = await prepareOwnSignature(
    deps,
    { token: o.token, certificate: readCertificate(o.body.certificate), language: o.body.language, fieldValues: o.body.field_values },
    CERT_AUTHORITY,
  );
  const { cert, status } = p.checked;
  return {
    preparation_id: p.id,
    signed_attributes: p.signedAttributes.toString('base64'),
    signature_algorithm: 'RSASSA-PKCS1-v1_5',
    hash: 'SHA-256',
    expires_at: p.expiresAt.toISOString(),
    certificate: {
      name: cert.name,
      emails: cert.emails,
      subject: cert.subject,
      issuer: cert.issuer,
      serial: cert.serialHex,
      valid_from: cert.notBefore.toISOString(),
      valid_to: cert.notAfter.toISOString(),
      status,
    },
  };
}

export async function finishCertSignature(deps: Deps, o: { token: string; body: CertFinishBody; ip?: string }): Promise<SignResult> {
  const signature = readSignatureValue(o.body.signature);
  return finishOwnSignature(deps, { token: o.token, preparationId: o.body.preparation_id, signature, ip: o.ip }, CERT_AUTHORITY);
}
