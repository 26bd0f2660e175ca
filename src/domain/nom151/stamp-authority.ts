// Which recognized authority signed a time-stamp token, a question apart from whether its
// certificate chains to a trusted root (check-token.ts reports the two separately): a root may
// vouch for several time-stamping authorities, and only one of them is the provider configured.
//   built-in: the token is signed by the service's own TSA certificate, or by an earlier one: a
//   time-stamping certificate under the service's own root (its TSA certificate is replaced when it
//   nears its end or the issuing CA is rolled, and the stamps it made stay the service's);
//   PSC: named as precisely as the configuration allows: by certificate, when SELLO_NOM151_TRUST_PEM
//   holds the PSC's own time-stamping certificate (any certificate of that file that is not a CA);
//   by name, when SELLO_NOM151_TSA_NAME gives its CN or subject (and the certificate chains to the
//   PSC's roots, so that a name alone vouches for nothing); with neither, every authority under the
//   PSC's roots is taken for the PSC (the file is then the PSC's alone, as docs/configuration.md says).
import { X509Certificate } from 'node:crypto';
import type { Deps, Nom151Psc } from '../deps.js';
import type { ProviderKind } from './stamp-provider.js';
import { isTimeStampingCertificate } from '../../pki/material-checks.js';

/** The certificates of the trust file that are the PSC's own time-stamping certificates, not CAs. */
export function pinnedPscCertificates(psc: Nom151Psc): Buffer[] {
  return psc.trustedRootsDer.filter((der) => {
    try {
      return !new X509Certificate(der).ca;
    } catch {
      return false;
    }
  });
}

/** "C=.., O=.., CN=.." and the CN of a certificate. */
function namesOf(der: Buffer): { subject: string; cn: string | undefined } {
  const subject = new X509Certificate(der).subject.split('\n').join(', ');
  return { subject, cn: /(?:^|, )CN=([^,]+)/.exec(subject)?.[1] };
}

export function recognizedAuthority(
  deps: Pick<Deps, 'pki' | 'nom151Psc'>,
  o: { tsaCertificateDer: Buffer; chainsToPsc: boolean; chainsToServiceRoot?: boolean },
): ProviderKind | null {
  if (o.tsaCertificateDer.equals(deps.pki.pki.tsa.certificateDer)) {
    return 'built_in';
  }
  if (o.chainsToServiceRoot && isTimeStampingCertificate(o.tsaCertificateDer)) {
    return 'built_in';
  }
  const psc = deps.nom151Psc;
  if (!psc) {
    return null;
  }
  const pinned = pinnedPscCertificates(psc);
  if (pinned.some((c) => c.equals(o.tsaCertificateDer))) {
    return 'psc';
  }
  if (!o.chainsToPsc) {
    return null;
  }
  if (psc.tsaName !== undefined) {
    const { subject, cn } = namesOf(o.tsaCertificateDer);
    return psc.tsaName === cn || psc.tsaName === subject ? 'psc' : null;
  }
  return pinned.length === 0 ? 'psc' : null;
}
