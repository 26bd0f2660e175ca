// The checks a CERT signer's own certificate passes before anything is prepared for it
// (decisions.md, "Own certificates"): it names the sticker's signer (their email, or the sticker's
// certificate_match), lets its key sign, is within its validity, chains to a CA of the operator's
// CERT trust list (SELLO_CERT_TRUST_PEM) and is not revoked (OCSP, then CRL). The browser makes the
// same checks first, to explain them to the signer; these are the ones that count.
import { X509Certificate } from 'node:crypto';
import { AppError } from '../../errors.js';
import { schemeOfKey } from '../../../pki/cms/index.js';
import type { Deps } from '../../deps.js';
import { validateChain } from '../../../pki/index.js';
import { type OwnCertificate, readOwnCertificate } from '../../../pki/own-certificate.js';
import { splitTrust } from '../../../pki/sat-certificate.js';
import type { SigningSigner } from '../../../store/signing-repo.js';
import type { CertificateMatch } from '../../documents/certificate-match.js';
import { certRevocation } from './cert-revocation.js';

type Reason = 'unreadable' | 'name_mismatch' | 'key_usage' | 'unsupported_key' | 'expired' | 'not_yet_valid' | 'untrusted' | 'revoked';

const refused = (reason: Reason, message: string) => new AppError('CERTIFICATE_REFUSED', message, { reason });

export interface CheckedCertCertificate {
  cert: OwnCertificate;
  chainDer: Buffer[];
  status: 'good' | 'unknown';
  ocspResponseDer?: Buffer;
}

/** Whose trust list a certificate is checked against: CERT's own certificates, or CSC's providers' credentials. */
export type TrustListOf = 'CERT' | 'CSC';

/** The trust list's anchors and issuing CAs; AUTHORITY_NOT_AVAILABLE when the operator configured none. */
export function certTrust(deps: Pick<Deps, 'config'>, of: TrustListOf = 'CERT') {
  const list = of === 'CERT' ? deps.config.cert.trustedDer : deps.config.csc.trustedDer;
  if (list.length === 0) {
    const setting = of === 'CERT' ? 'SELLO_CERT_TRUST_PEM' : 'SELLO_CSC_TRUST_PEM';
    throw new AppError('AUTHORITY_NOT_AVAILABLE', `signing with authority ${of} is not configured on this server (${setting})`, {
      authority: of,
    });
  }
  return splitTrust(list);
}

/** The certificate's path to a trusted CA at `at` (leaf first), or CERTIFICATE_REFUSED. */
export function certChain(deps: Pick<Deps, 'config'>, der: Uint8Array, at: Date, of: TrustListOf = 'CERT'): Buffer[] {
  const trust = certTrust(deps, of);
  const path = validateChain(der, { trustedRootsDer: trust.anchors, untrustedDer: trust.intermediates, at: [at] });
  if (!path.ok) {
    const { problem } = path;
    if (problem.kind === 'expired' || problem.kind === 'not_yet_valid') {
      throw refused(problem.kind, `a certificate of the chain is not valid now: ${problem.message}`);
    }
    throw refused('untrusted', `the certificate is not issued by a certification authority this server trusts (${problem.message})`);
  }
  return path.path;
}

/** Whether the certificate names this signer: certificate_match when the sticker gave one, else the email. */
export function namesSigner(cert: OwnCertificate, signer: Pick<SigningSigner, 'data' | 'certificate_match'>): string | undefined {
  // Written only by the create payload's check (certificate-match.ts).
  const m = signer.certificate_match as CertificateMatch | null;
  if (!m) {
    return cert.emails.includes(signer.data.toLowerCase())
      ? undefined
      : `the certificate is for ${cert.emails.join(', ') || 'no email address'}; this signature is for ${signer.data}`;
  }
  const held = m.field === 'email' ? cert.emails : m.field === 'uid' ? [cert.uid] : [cert.serialNumberAttribute].filter((v) => v !== '');
  const ok = m.field === 'email' ? held.includes(m.value.toLowerCase()) : held.includes(m.value);
  return ok ? undefined : `the certificate's ${m.field} is not the one this signature asks for`;
}

export async function checkCertCertificate(
  deps: Pick<Deps, 'config' | 'clock' | 'fetchPkiData'>,
  der: Buffer,
  signer: Pick<SigningSigner, 'data' | 'certificate_match'>,
  of: TrustListOf = 'CERT',
): Promise<CheckedCertCertificate> {
  certTrust(deps, of);
  let cert: OwnCertificate;
  try {
    cert = readOwnCertificate(der);
  } catch (err) {
    throw refused('unreadable', `the certificate cannot be read: ${(err as Error).message}`);
  }
  const mismatch = namesSigner(cert, signer);
  if (mismatch) {
    throw refused('name_mismatch', mismatch);
  }
  if (!cert.signs) {
    throw refused('key_usage', "the certificate's key usage allows neither digital signature nor non-repudiation");
  }
  // The CMS this service writes around the signer's value is RSA (PKCS#1 v1.5, PSS) or ECDSA on the NIST curves.
  const key = new X509Certificate(der).publicKey;
  if (!schemeOfKey(key)) {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    throw refused(
      'unsupported_key',
      `the certificate's key is ${cert.keyType}${curve ? ` on ${curve}` : ''}; this server signs with RSA keys and ECDSA keys on P-256, P-384 or P-521`,
    );
  }
  const now = deps.clock.now();
  if (now < cert.notBefore) {
    throw refused('not_yet_valid', `the certificate is valid from ${cert.notBefore.toISOString()}`);
  }
  if (now > cert.notAfter) {
    throw refused('expired', `the certificate expired on ${cert.notAfter.toISOString()}`);
  }
  const path = certChain(deps, der, now, of);
  const revocation = await certRevocation(deps, der, path[1], now);
  if (revocation.status === 'revoked') {
    const since = revocation.revokedAt ? ` since ${revocation.revokedAt.toISOString()}` : '';
    throw refused('revoked', `the certification authority reports this certificate revoked${since} (${revocation.source.toUpperCase()})`);
  }
  return { cert, chainDer: path.slice(1), ...revocation };
}
