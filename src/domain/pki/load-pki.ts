// The service's PKI at start: the material stored in the database (generated on the very first
// start), or the operator's own CA from PEM or PKCS#12 files. Keys are sealed under the master key
// in the database; in memory they are non-extractable CryptoKeys. Every load also renews the OCSP
// responder certificate when it is due (renew-ocsp-responder.ts).
import { readFile } from 'node:fs/promises';
import type { Clock } from '../deps.js';
import type { Db } from '../../store/db.js';
import {
  generateServicePki,
  importPki,
  loadPkiFromPem,
  loadPkiFromPkcs12,
  normalizeSerialHex,
  openPkiMaterial,
  sealPkiMaterial,
  type LoadedPki,
  type PkiMaterial,
} from '../../pki/index.js';
import type { SecretBox } from '../../pki/secret-box.js';
import type { ServiceKeyStore } from '../../pki/service-key.js';
import { loadPkiMaterial, recordIssuedCertificate, replacePkiMaterial, storePkiMaterial, withPkiLock } from '../../store/pki-repo.js';
import { operatorResponderWarning, renewOcspResponderIfDue } from './renew-ocsp-responder.js';

export interface PkiSettings {
  /** O= of the generated certificates. */
  organization: string;
  /** Operator CA from PEM files (issuing certificate chain, its key, the root). */
  pem?: { rootCertPath: string; issuingCertPath: string; issuingKeyPath: string; keyPassphrase?: string };
  /** Operator CA from a PKCS#12 file holding the issuing CA's key and chain. */
  pkcs12?: { path: string; password: string; rootCertPath?: string };
}

/** Where warnings about the PKI go (an operator's responder certificate about to end). */
export type PkiWarn = (message: string) => void;

const warnOnStderr: PkiWarn = (message) => console.warn(`pki: ${message}`);

/**
 * The PKI ready to sign. With `keyStore` a PKCS#11 token, the keys are the token's: generated there
 * on the very first start, found by label and checked against their stored certificates later.
 */
export async function loadPki(
  deps: {
    db: Db;
    secrets: SecretBox;
    clock: Clock;
    warn?: PkiWarn;
    progress?: (message: string) => void;
    keyStore?: ServiceKeyStore;
  },
  settings: PkiSettings,
  baseUrl: string,
): Promise<LoadedPki> {
  await storeMaterial(deps, settings, baseUrl);
  const checked = await renewOcspResponderIfDue(deps, { organization: settings.organization, baseUrl });
  if (checked.outcome === 'operator') {
    (deps.warn ?? warnOnStderr)(operatorResponderWarning(checked.notAfter, deps.clock.now()));
  }
  return importPki(checked.material, deps.keyStore);
}

/** Makes sure the material is stored: the operator's, or the one generated on the very first start. */
async function storeMaterial(
  deps: { db: Db; secrets: SecretBox; clock: Clock; progress?: (message: string) => void; keyStore?: ServiceKeyStore },
  settings: PkiSettings,
  baseUrl: string,
): Promise<void> {
  const now = deps.clock.now();
  if (settings.pem || settings.pkcs12) {
    await operatorMaterial(deps, settings, baseUrl, now);
    return;
  }
  if (await loadPkiMaterial(deps.db)) {
    return;
  }
  await withPkiLock(deps.db, async () => {
    // Another process may have generated it while this one waited for the lock.
    if (await loadPkiMaterial(deps.db)) {
      return;
    }
    const where = deps.keyStore?.location === 'token' ? ' in the PKCS#11 token' : '';
    deps.progress?.(`Generating the service PKI: root, issuing CA, time-stamp authority and OCSP responder keys${where}…`);
    const material = await generateServicePki({ organization: settings.organization, baseUrl, now, keyStore: deps.keyStore });
    await storePkiMaterial(deps.db, 'generated', sealPkiMaterial(material, deps.secrets));
    await recordServiceCertificates(deps.db, material);
  });
}

/**
 * The operator's CA. The TSA and OCSP certificates it lacks are issued under it once and stored;
 * a later start with the same issuing CA reuses them (so they do not change at every restart).
 */
async function operatorMaterial(deps: { db: Db; secrets: SecretBox }, s: PkiSettings, baseUrl: string, now: Date): Promise<PkiMaterial> {
  const stored = await loadPkiMaterial(deps.db);
  const options = { organization: s.organization, baseUrl, now };
  let material: PkiMaterial;
  if (s.pem) {
    material = await loadPkiFromPem(
      {
        rootCertificatePem: await readFile(s.pem.rootCertPath, 'utf8'),
        issuingCertificatePem: await readFile(s.pem.issuingCertPath, 'utf8'),
        issuingKeyPem: await readFile(s.pem.issuingKeyPath, 'utf8'),
        keyPassphrase: s.pem.keyPassphrase,
      },
      options,
    );
  } else {
    const p = s.pkcs12!;
    material = await loadPkiFromPkcs12(
      {
        issuing: { der: await readFile(p.path), password: p.password },
        rootCertificatePem: p.rootCertPath ? await readFile(p.rootCertPath, 'utf8') : undefined,
      },
      options,
    );
  }
  if (stored?.source === 'operator') {
    const previous = openPkiMaterial(stored.sealed, deps.secrets);
    if (previous.issuing.certificateDer.equals(material.issuing.certificateDer)) {
      return previous;
    }
  }
  await replacePkiMaterial(deps.db, 'operator', sealPkiMaterial(material, deps.secrets));
  await recordServiceCertificates(deps.db, material);
  return material;
}

/** The TSA and OCSP certificates are answered for by our own OCSP responder and CRL too. */
async function recordServiceCertificates(db: Db, m: PkiMaterial) {
  const { X509Certificate } = await import('node:crypto');
  for (const [kind, der] of [
    ['tsa', m.tsa.certificateDer],
    ['ocsp', m.ocsp.certificateDer],
  ] as const) {
    const c = new X509Certificate(der);
    await recordIssuedCertificate(db, {
      serialHex: normalizeSerialHex(c.serialNumber),
      kind,
      subject: c.subject,
      notBefore: new Date(c.validFrom),
      notAfter: new Date(c.validTo),
    });
  }
}
