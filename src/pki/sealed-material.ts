// PkiMaterial in a storable, JSON-safe form with every private key sealed under the master key
// (secret-box.ts, AES-256-GCM): the database never holds a CA key in the clear (DESIGN, security
// stance). Certificates are public and stay readable, so /pki/ca.pem needs no master key.
import { PkiError } from './errors.js';
import type { KeyedCertificate, PkiMaterial } from './material-types.js';
import type { SecretBox } from './secret-box.js';

/**
 * A certificate and where its key is: sealedKey (in software) or tokenLabel (in the PKCS#11 token,
 * where the key stays: only its label is stored).
 */
export interface SealedKeyedCertificate {
  certificate: string;
  sealedKey?: string;
  tokenLabel?: string;
}

/** Base64 DER certificates; keys are base64 of box.seal(base64 PKCS#8), or a token label. */
export interface SealedPkiMaterial {
  version: 1;
  root: SealedKeyedCertificate;
  issuing: SealedKeyedCertificate;
  intermediates: string[];
  tsa: SealedKeyedCertificate;
  ocsp: SealedKeyedCertificate;
  /** PkiMaterial.ocspFromOperator; absent (false) in material stored before it existed. */
  ocspFromOperator?: true;
}

const b64 = (bytes: Buffer) => bytes.toString('base64');
const unb64 = (text: string) => Buffer.from(text, 'base64');

export function sealPkiMaterial(material: PkiMaterial, box: SecretBox): SealedPkiMaterial {
  const seal = (key: Buffer) => b64(box.seal(b64(key)));
  const keyed = (k: { certificateDer: Buffer; privateKeyPkcs8?: Buffer; tokenLabel?: string }): SealedKeyedCertificate => ({
    certificate: b64(k.certificateDer),
    sealedKey: k.privateKeyPkcs8 ? seal(k.privateKeyPkcs8) : undefined,
    tokenLabel: k.tokenLabel,
  });
  return {
    version: 1,
    root: keyed(material.root),
    issuing: keyed(material.issuing),
    intermediates: material.intermediatesDer.map(b64),
    tsa: keyed(material.tsa),
    ocsp: keyed(material.ocsp),
    ocspFromOperator: material.ocspFromOperator ? true : undefined,
  };
}

/** Opens sealed material; a wrong master key or a tampered key throws (GCM authentication). */
export function openPkiMaterial(sealed: SealedPkiMaterial, box: SecretBox): PkiMaterial {
  if (sealed.version !== 1) {
    throw new PkiError('bad_material', `unknown sealed PKI version ${String(sealed.version)}`);
  }
  const open = (text: string) => unb64(box.open(unb64(text)));
  const keyed = (k: SealedKeyedCertificate, what: string): KeyedCertificate => {
    const certificateDer = unb64(k.certificate);
    if (k.sealedKey) {
      return { certificateDer, privateKeyPkcs8: open(k.sealedKey) };
    }
    if (k.tokenLabel) {
      return { certificateDer, tokenLabel: k.tokenLabel };
    }
    throw new PkiError('bad_material', `the stored ${what} certificate has no key`);
  };
  return {
    root: {
      certificateDer: unb64(sealed.root.certificate),
      privateKeyPkcs8: sealed.root.sealedKey ? open(sealed.root.sealedKey) : undefined,
      tokenLabel: sealed.root.tokenLabel,
    },
    issuing: keyed(sealed.issuing, 'issuing CA'),
    intermediatesDer: sealed.intermediates.map(unb64),
    tsa: keyed(sealed.tsa, 'TSA'),
    ocsp: keyed(sealed.ocsp, 'OCSP responder'),
    ocspFromOperator: sealed.ocspFromOperator === true,
  };
}
