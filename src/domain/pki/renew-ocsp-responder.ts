// Renewal of the OCSP responder certificate. It is short-lived (365 days, RFC 6960 §4.2.2.2.1
// recommends a short life for a nocheck responder), and once it has expired every OCSP answer is
// signed by an expired certificate, which validators refuse: the revocation data of every
// signature made after that is then worthless. From OCSP_RENEWAL_DAYS before its end, the first
// process to check issues a new key and certificate under the issuing CA and stores it; the others
// read it from the stored material at their next check. A certificate the operator supplied is
// the operator's to replace: it is only reported.
import { X509Certificate } from 'node:crypto';
import type { Clock } from '../deps.js';
import type { Db } from '../../store/db.js';
import {
  certificateNotAfter,
  normalizeSerialHex,
  ocspRenewalDue,
  openPkiMaterial,
  renewOcspResponder,
  sealPkiMaterial,
  type PkiMaterial,
} from '../../pki/index.js';
import type { SecretBox } from '../../pki/secret-box.js';
import type { ServiceKeyStore } from '../../pki/service-key.js';
import { loadPkiMaterial, lockPkiMaterial, recordIssuedCertificate, updatePkiMaterial } from '../../store/pki-repo.js';

/** How a new responder certificate is named (O=, CN) and where its caIssuers URL points. */
export interface OcspRenewalSettings {
  organization: string;
  baseUrl: string;
}

/**
 * The stored material after the check: `current` (not due, or renewed meanwhile by another
 * process), `renewed` (by this call), `operator` (due, but the operator's: left as it is).
 */
export type OcspResponderCheck =
  | { outcome: 'current' | 'renewed'; material: PkiMaterial }
  | { outcome: 'operator'; material: PkiMaterial; notAfter: Date };

/** Renews the stored OCSP responder certificate if it ends within OCSP_RENEWAL_DAYS. */
export async function renewOcspResponderIfDue(
  deps: { db: Db; secrets: SecretBox; clock: Clock; keyStore?: ServiceKeyStore },
  settings: OcspRenewalSettings,
): Promise<OcspResponderCheck> {
  const now = deps.clock.now();
  const stored = await loadPkiMaterial(deps.db);
  if (!stored) {
    throw new Error('no PKI material is stored: load the PKI first');
  }
  const material = openPkiMaterial(stored.sealed, deps.secrets);
  const unchanged = settle(material, now);
  if (unchanged) {
    return unchanged;
  }
  return deps.db.transaction().execute(async (trx) => {
    // The row lock serialises renewals: a process that waited finds the certificate renewed and
    // uses that one instead of issuing another.
    const locked = await lockPkiMaterial(trx);
    const current = openPkiMaterial(locked!.sealed, deps.secrets);
    const settled = settle(current, now);
    if (settled) {
      return settled;
    }
    const renewed = await renewOcspResponder(current, {
      organization: settings.organization,
      baseUrl: settings.baseUrl,
      now,
      keyStore: deps.keyStore,
    });
    await updatePkiMaterial(trx, sealPkiMaterial(renewed, deps.secrets));
    // Answered for by the CRL and OCSP like the other certificates the issuing CA signs.
    const c = new X509Certificate(renewed.ocsp.certificateDer);
    await recordIssuedCertificate(trx, {
      serialHex: normalizeSerialHex(c.serialNumber),
      kind: 'ocsp',
      subject: c.subject,
      notBefore: new Date(c.validFrom),
      notAfter: new Date(c.validTo),
    });
    return { outcome: 'renewed' as const, material: renewed };
  });
}

/** The check's answer when nothing is to be issued; undefined when a renewal is due. */
function settle(material: PkiMaterial, now: Date): OcspResponderCheck | undefined {
  const notAfter = certificateNotAfter(material.ocsp.certificateDer);
  if (!ocspRenewalDue(notAfter, now)) {
    return { outcome: 'current', material };
  }
  if (material.ocspFromOperator) {
    return { outcome: 'operator', material, notAfter };
  }
  return undefined;
}

/** What to tell the operator about a responder certificate of theirs that is about to end. */
export function operatorResponderWarning(notAfter: Date, now: Date): string {
  const when = notAfter.toISOString();
  return notAfter.getTime() <= now.getTime()
    ? `the OCSP responder certificate you supplied expired on ${when}: validators refuse OCSP answers signed with it; configure a new one`
    : `the OCSP responder certificate you supplied expires on ${when}: configure a new one before then, or validators will refuse OCSP answers signed with it`;
}
