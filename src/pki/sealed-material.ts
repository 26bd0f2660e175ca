// PkiMaterial in a storable, JSON-safe form with every private key sealed under the master key
// (secret-box.ts, AES-256-GCM): the database never holds a CA key in the clear (DESIGN, security
// stance). Certificates are public and stay readable, so /pki/ca.pem needs no master key.
import { PkiError } from './errors.js';
import type { KeyedCertificate, PkiMaterial } from './material-types.js';
import type { SecretBox } from './secret-box.js';

/** Base64 DER certificates; keys are base64 of box.seal(base64 PKCS#8). */
export interface SealedPkiMaterial {
  version: 1;
  root: { certificate: string; sealedKey?: string };
  issuing: { certificate: string; sealedKey: string };
  intermediates: string[];
  tsa: { certificate: string; sealedKey: string };
  ocsp: { certificate: string; sealedKey: string };
  /** PkiMaterial.ocspFromOperator; absent (false) in material stored before it existed. */
  ocspFromOperator?: true;
}

const b64 = (bytes: Buffer) => bytes.toString('base64');
const unb64 = (text: string) => Buffer.from(text, 'base64');

export function sealPkiMaterial(material: PkiMaterial, box: SecretBox): SealedPkiMaterial {
  const seal = (key: Buffer) => b64(box.seal(b64(key)));
  const keyed = (k: KeyedCertificate) => ({ certificate: b64(k.certificateDer), sealedKey: seal(k.privateKeyPkcs8) });
  return {
    version: 1,
    root: {
      certificate: b64(material.root.certificateDer),
      sealedKey: material.root.privateKeyPkcs8 ? seal(material.root.privateKeyPkcs8) : undefined,
    },
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
  const keyed = (k: { certificate: string; sealedKey: string }) => ({
    certificateDer: unb64(k.certificate),
    privateKeyPkcs8: open(k.sealedKey),
  });
  return {
    root: {
      certificateDer: unb64(sealed.root.certificate),
      privateKeyPkcs8: sealed.root.sealedKey ? open(sealed.root.sealedKey) : undefined,
    },
    issuing: keyed(sealed.issuing),
    intermediatesDer: sealed.intermediates.map(unb64),
    tsa: keyed(sealed.tsa),
    ocsp: keyed(sealed.ocsp),
    ocspFromOperator: sealed.ocspFromOperator === true,
  };
}
