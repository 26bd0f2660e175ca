// CSC as one of the authorities whose signers sign with a certificate of their own
// (own-certificate/authority.ts): the certificate of the provider's credential, checked as a CERT
// certificate (it names the sticker's signer, may sign, is valid, not revoked) against the CAs the
// operator trusts for CSC (SELLO_CSC_TRUST_PEM).
import { AppError } from '../../errors.js';
import { readOwnCertificate } from '../../../pki/own-certificate.js';
import type { CheckedCert } from '../cert/cert-authority.js';
import { certChain, checkCertCertificate } from '../cert/check-cert-certificate.js';
import type { OwnCertificateAuthority } from '../own-certificate/authority.js';

export function cscAuthority(provider: string): OwnCertificateAuthority<CheckedCert> {
  return {
    authority: 'CSC',
    provider,
    noun: 'remote signature',
    async check(deps, der, signer) {
      const checked = await checkCertCertificate(deps, der, signer, 'CSC');
      return { ...checked, name: checked.cert.name, serialHex: checked.cert.serialHex, rfc: null, certificateNumber: null };
    },
    chain: (deps, der, at) => certChain(deps, der, at, 'CSC'),
    legend: (checked, language) => ({
      authorityLabel: `${language === 'en' ? 'Remote signature' : 'Firma remota'} (${provider}): ${checked.cert.emails[0] ?? checked.cert.serialHex}`,
      reason:
        language === 'en' ? `Electronic signature with a credential of ${provider}` : `Firma electrónica con una credencial de ${provider}`,
    }),
    signatureInvalid: () =>
      new AppError('CSC_PROVIDER_ERROR', `${provider}: the signature it returned does not verify with the credential's certificate`, {
        provider,
        step: 'signatures/signHash',
      }),
    signatureType: 'certificate',
    historyDetails: (p) => {
      const cert = readOwnCertificate(p.certificate);
      return { provider, certificate_subject: cert.subject, certificate_issuer: cert.issuer, certificate_serial: cert.serialHex };
    },
  };
}
