// CERT as one of the authorities whose signers sign with their own certificate
// (own-certificate/authority.ts): a certificate from a CA of the operator's trust list, naming the
// sticker's signer (check-cert-certificate.ts).
import { AppError } from '../../errors.js';
import { readOwnCertificate } from '../../../pki/own-certificate.js';
import type { OwnCertificateAuthority } from '../own-certificate/authority.js';
import { type CheckedCertCertificate, certChain, checkCertCertificate } from './check-cert-certificate.js';

export type CheckedCert = CheckedCertCertificate & { name: string; serialHex: string; rfc: null; certificateNumber: null };

export const CERT_AUTHORITY: OwnCertificateAuthority<CheckedCert> = {
  authority: 'CERT',
  noun: 'certificate',
  async check(deps, der, signer) {
    const checked = await checkCertCertificate(deps, der, signer);
    return { ...checked, name: checked.cert.name, serialHex: checked.cert.serialHex, rfc: null, certificateNumber: null };
  },
  chain: certChain,
  legend: (checked, language) => ({
    authorityLabel: `${language === 'en' ? 'Certificate' : 'Certificado'}: ${checked.cert.emails[0] ?? checked.cert.serialHex}`,
    reason: language === 'en' ? 'Advanced electronic signature (own certificate)' : 'Firma electrónica avanzada (certificado propio)',
  }),
  signatureInvalid: () =>
    new AppError(
      'CERTIFICATE_SIGNATURE_INVALID',
      'the signature does not verify with the certificate: was it made with the key of this certificate?',
    ),
  signatureType: 'certificate',
  historyDetails: (p) => {
    const cert = readOwnCertificate(p.certificate);
    return { certificate_subject: cert.subject, certificate_issuer: cert.issuer, certificate_serial: cert.serialHex };
  },
};
