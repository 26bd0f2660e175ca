// The SAT e.firma as one of the authorities whose signers sign with their own certificate
// (own-certificate/authority.ts): the certificate must be an e.firma for the sticker's RFC, under
// the SAT's CAs the operator trusts (check-sat-certificate.ts).
import { AppError } from '../../errors.js';
import type { OwnCertificateAuthority } from '../own-certificate/authority.js';
import { type CheckedSatCertificate, checkSatCertificate, satChain } from './check-sat-certificate.js';

export type CheckedSat = CheckedSatCertificate & { name: string; serialHex: string; rfc: string; certificateNumber: string };

export const SAT_AUTHORITY: OwnCertificateAuthority<CheckedSat> = {
  authority: 'SAT',
  noun: 'e.firma',
  async check(deps, der, signer) {
    const checked = await checkSatCertificate(deps, der, signer.data);
    const { cert } = checked;
    return { ...checked, name: cert.name, serialHex: cert.serialHex, rfc: cert.rfc, certificateNumber: cert.certificateNumber };
  },
  chain: satChain,
  legend: (checked, language) => ({
    authorityLabel: `${language === 'en' ? 'SAT e.firma' : 'e.firma SAT'}: ${checked.rfc}`,
    reason: language === 'en' ? 'Advanced electronic signature (SAT e.firma)' : 'Firma electrónica avanzada (e.firma SAT)',
  }),
  signatureInvalid: () =>
    new AppError('SAT_SIGNATURE_INVALID', 'the signature does not verify with the certificate: was it made with the key of this e.firma?'),
  signatureType: 'efirma',
  historyDetails: (p) => ({ rfc: p.rfc, certificate_number: p.certificate_number }),
};
