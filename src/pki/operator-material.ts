// Operator-provided PKI: an issuing CA (and its chain) from PEM or PKCS#12, optionally the TSA and
// OCSP responder certificates too. What is not provided is issued here under the operator's
// issuing CA, so an operator only has to hand over one CA. The root key is usually kept offline:
// then the service cannot sign the root CRL, which the operator's own CA publishes instead.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import * as pkijs from 'pkijs';
import { PkiError } from './errors.js';
import { isIssuedBy } from './material-checks.js';
import type { KeyedCertificate, PkiMaterial } from './material-types.js';
import { issueOcspResponderCertificate, issueTsaCertificate } from './service-certificates.js';
import { pemCertificates } from './pem.js';
import { engine, parseCertificate, toArrayBuffer } from './primitives.js';
import { serviceKeyFromPkcs8 } from './service-key.js';
import { OID } from './cms/oids.js';

/** How to name and date the certificates issued for what the operator did not provide. */
export interface CompleteMaterialOptions {
  organization: string;
  country?: string;
  baseUrl: string;
  now: Date;
  tsaValidityYears?: number;
  ocspValidityDays?: number;
}

export interface OperatorPemInput {
  /** The trust anchor, PEM. */
  rootCertificatePem: string;
  /** Only if the service should sign the root CRL; usually absent. */
  rootKeyPem?: string;
  /** The issuing CA certificate first, then any intermediates (the root may be included too). */
  issuingCertificatePem: string;
  /** PKCS#8, PKCS#1 or SEC1, plain or encrypted (keyPassphrase). */
  issuingKeyPem: string;
  tsa?: { certificatePem: string; keyPem: string };
  ocsp?: { certificatePem: string; keyPem: string };
  keyPassphrase?: string;
}

/** Any PEM private key node:crypto reads, as PKCS#8 DER. */
function pkcs8FromPem(pem: string, passphrase: string | undefined, what: string): Buffer {
  try {
    return createPrivateKey({ key: pem, format: 'pem', passphrase }).export({ type: 'pkcs8', format: 'der' });
  } catch {
    throw new PkiError('bad_material', `the ${what} private key cannot be read (wrong format or passphrase)`);
  }
}

function single(pem: string, what: string): Buffer {
  const certs = pemCertificates(pem);
  if (certs.length !== 1) {
    throw new PkiError('bad_material', `expected one ${what} certificate, found ${certs.length}`);
  }
  return certs[0];
}

/** Orders the certificates above `issuingDer` up to (excluding) the root: nearest first. */
function intermediatesBetween(issuingDer: Buffer, rootDer: Buffer, others: Buffer[]): Buffer[] {
  const pool = others.filter((der) => !der.equals(rootDer) && !der.equals(issuingDer));
  const path: Buffer[] = [];
  let current = new X509Certificate(issuingDer);
  const root = new X509Certificate(rootDer);
  while (!isIssuedBy(current, root)) {
    const next = pool.find((der) => !path.some((p) => p.equals(der)) && isIssuedBy(current, new X509Certificate(der)));
    if (!next) {
      throw new PkiError('bad_material', 'the issuing CA does not chain to the root with the certificates given');
    }
    path.push(next);
    current = new X509Certificate(next);
  }
  return path;
}

/** Fills in the TSA and OCSP certificates the operator did not provide, under their issuing CA. */
async function complete(
  base: Omit<PkiMaterial, 'tsa' | 'ocsp'> & { tsa?: KeyedCertificate; ocsp?: KeyedCertificate },
  options: CompleteMaterialOptions,
): Promise<PkiMaterial> {
  const pkcs8 = base.issuing.privateKeyPkcs8;
  if (!pkcs8) {
    throw new PkiError('bad_material', 'the issuing CA private key is missing');
  }
  // Checked before anything is issued under it: a wrong key would sign certificates no one can verify.
  const key = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  if (!new X509Certificate(base.issuing.certificateDer).checkPrivateKey(key)) {
    throw new PkiError('bad_material', 'the issuing CA private key does not match its certificate');
  }
  const issuer = {
    certificate: parseCertificate(base.issuing.certificateDer),
    key: await serviceKeyFromPkcs8(pkcs8, 'issuing'),
  };
  const common = { organization: options.organization, country: options.country, baseUrl: options.baseUrl, now: options.now };
  const tsa = base.tsa ?? (await issueTsaCertificate(issuer, { ...common, validityDays: 365 * (options.tsaValidityYears ?? 5) }));
  const ocsp = base.ocsp ?? (await issueOcspResponderCertificate(issuer, { ...common, validityDays: options.ocspValidityDays ?? 365 }));
  // The service renews a responder certificate it issued, never one the operator supplied.
  return { ...base, tsa, ocsp, ocspFromOperator: base.ocsp !== undefined };
}

/** Reads operator material from PEM. The result is unchecked: importPki checks it. */
export async function loadPkiFromPem(input: OperatorPemInput, options: CompleteMaterialOptions): Promise<PkiMaterial> {
  const rootDer = single(input.rootCertificatePem, 'root');
  const issuingChain = pemCertificates(input.issuingCertificatePem);
  if (issuingChain.length === 0) {
    throw new PkiError('bad_material', 'no issuing CA certificate');
  }
  const pass = input.keyPassphrase;
  const keyed = (pair: { certificatePem: string; keyPem: string } | undefined, what: string) =>
    pair && { certificateDer: single(pair.certificatePem, what), privateKeyPkcs8: pkcs8FromPem(pair.keyPem, pass, what) };
  return complete(
    {
      root: { certificateDer: rootDer, privateKeyPkcs8: input.rootKeyPem ? pkcs8FromPem(input.rootKeyPem, pass, 'root') : undefined },
      issuing: { certificateDer: issuingChain[0], privateKeyPkcs8: pkcs8FromPem(input.issuingKeyPem, pass, 'issuing CA') },
      intermediatesDer: intermediatesBetween(issuingChain[0], rootDer, issuingChain.slice(1)),
      tsa: keyed(input.tsa, 'TSA'),
      ocsp: keyed(input.ocsp, 'OCSP responder'),
    },
    options,
  );
}

/** A PKCS#12 file and its password. */
export interface Pkcs12Input {
  der: Uint8Array;
  password: string;
}

export interface OperatorPkcs12Input {
  /** Key and certificate of the issuing CA, with its chain; the root too unless rootCertificatePem is given. */
  issuing: Pkcs12Input;
  rootCertificatePem?: string;
  tsa?: Pkcs12Input;
  ocsp?: Pkcs12Input;
}

type ShroudedKeyBag = {
  parseInternalValues(parameters: { password: ArrayBuffer }, crypto: pkijs.ICryptoEngine): Promise<void>;
  parsedValue?: pkijs.PrivateKeyInfo;
};

/**
 * The keys (PKCS#8 DER) and certificates of a PKCS#12 file, integrity checked with the password.
 * Supported: password-based PBES2 (PBKDF2 + AES), the OpenSSL 3 default. Not supported: the
 * legacy RC2/3DES PBEs of `openssl pkcs12 -legacy` and old Windows exports (re-export them).
 */
export async function readPkcs12(input: Pkcs12Input): Promise<{ keys: Buffer[]; certificates: Buffer[] }> {
  const password = toArrayBuffer(Buffer.from(input.password, 'utf8'));
  let pfx: pkijs.PFX;
  try {
    pfx = pkijs.PFX.fromBER(toArrayBuffer(input.der));
  } catch {
    throw new PkiError('bad_der', 'not a PKCS#12 file');
  }
  try {
    await pfx.parseInternalValues({ password, checkIntegrity: true }, engine);
  } catch {
    throw new PkiError('bad_password', 'the PKCS#12 password is wrong or the file is damaged');
  }
  const keys: Buffer[] = [];
  const certificates: Buffer[] = [];
  try {
    const safe = pfx.parsedValue!.authenticatedSafe!;
    await safe.parseInternalValues({ safeContents: safe.safeContents.map(() => ({ password })) }, engine);
    for (const contents of safe.parsedValue.safeContents) {
      for (const bag of contents.value.safeBags) {
        if (bag.bagId === OID.pkcs8ShroudedKeyBag) {
          // parseInternalValues is public in pkijs's JavaScript but typed protected on this class.
          const shrouded = bag.bagValue as unknown as ShroudedKeyBag;
          await shrouded.parseInternalValues({ password }, engine);
          keys.push(Buffer.from(shrouded.parsedValue!.toSchema().toBER(false)));
        } else if (bag.bagId === OID.keyBag) {
          keys.push(Buffer.from((bag.bagValue as pkijs.PrivateKeyInfo).toSchema().toBER(false)));
        } else if (bag.bagId === OID.certBag) {
          const parsed = (bag.bagValue as pkijs.CertBag).parsedValue;
          if (parsed instanceof pkijs.Certificate) {
            certificates.push(Buffer.from(parsed.toSchema().toBER(false)));
          }
        }
      }
    }
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new PkiError(
      'bad_material',
      `the PKCS#12 content cannot be decrypted (${detail}); re-export it with OpenSSL 3 defaults (AES-256)`,
    );
  }
  return { keys, certificates };
}

/** The certificate matching the single key of a PKCS#12, and the other certificates in it. */
async function keyedFromPkcs12(input: Pkcs12Input, what: string): Promise<{ keyed: KeyedCertificate; others: Buffer[] }> {
  const { keys, certificates } = await readPkcs12(input);
  if (keys.length !== 1) {
    throw new PkiError('bad_material', `the ${what} PKCS#12 must hold exactly one private key, it holds ${keys.length}`);
  }
  const key = createPrivateKey({ key: keys[0], format: 'der', type: 'pkcs8' });
  const own = certificates.find((der) => new X509Certificate(der).checkPrivateKey(key));
  if (!own) {
    throw new PkiError('bad_material', `the ${what} PKCS#12 has no certificate for its key`);
  }
  return { keyed: { certificateDer: own, privateKeyPkcs8: keys[0] }, others: certificates.filter((der) => der !== own) };
}

/** Reads operator material from PKCS#12 files. The result is unchecked: importPki checks it. */
export async function loadPkiFromPkcs12(input: OperatorPkcs12Input, options: CompleteMaterialOptions): Promise<PkiMaterial> {
  const issuing = await keyedFromPkcs12(input.issuing, 'issuing CA');
  const selfSigned = issuing.others.filter((der) => {
    const cert = new X509Certificate(der);
    return isIssuedBy(cert, cert);
  });
  const rootDer = input.rootCertificatePem ? single(input.rootCertificatePem, 'root') : selfSigned[0];
  if (!rootDer) {
    throw new PkiError('bad_material', 'the root certificate is neither in the PKCS#12 nor given as rootCertificatePem');
  }
  return complete(
    {
      root: { certificateDer: rootDer },
      issuing: issuing.keyed,
      intermediatesDer: intermediatesBetween(issuing.keyed.certificateDer, rootDer, issuing.others),
      tsa: input.tsa ? (await keyedFromPkcs12(input.tsa, 'TSA')).keyed : undefined,
      ocsp: input.ocsp ? (await keyedFromPkcs12(input.ocsp, 'OCSP responder')).keyed : undefined,
    },
    options,
  );
}
