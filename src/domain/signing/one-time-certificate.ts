// The certificate of one signature: issued by the service's CA for a key made for it (from the pool),
// recorded so the OCSP responder answers for it, with the key type the document's account chose
// (else the operator's) and the lifetime the operator chose. Signer signatures and the service's own
// seals (the history as PDF) take theirs here: a seal goes to the same consumers as the signatures.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { issueSignerCertificate, pkiUrls, randomSerialHex, type SignerCertificate } from '../../pki/index.js';
import type { SignerKeyAlgorithm } from '../../pki/signer-defaults.js';
import type { Db } from '../../store/db.js';
import { signerKeyOfDocument } from '../../store/accounts-repo.js';
import { recordIssuedCertificate } from '../../store/pki-repo.js';
import type { Database } from '../../store/schema.js';

export interface OneTimeCertificateRequest {
  /** CN: the signer's name, or the service's for a seal. */
  name: string;
  email?: string;
  /** E.164 phone of an SMS or WHATSAPP signer, named in the certificate as a tel: URI. */
  phone?: string;
  /** For a seal: the service's public URL. */
  uri?: string;
  kind: 'signer' | 'seal';
  documentId: string;
  signerRowId?: string;
  now: Date;
  /** A pair taken beforehand for this one certificate (takeSignerKey); else one is taken here. */
  key?: TakenSignerKey;
}

/** A one-time pair taken ahead of its certificate, of the type the document's account chose. */
export interface TakenSignerKey {
  algorithm: SignerKeyAlgorithm;
  pair: CryptoKeyPair;
}

/** The key type of a document's signatures: its account's choice, else the operator's. */
async function keyAlgorithmOf(deps: Pick<Deps, 'config'>, q: Db | Transaction<Database>, documentId: string) {
  // Read at each signature: a change of the account's choice applies to its next signature.
  return (await signerKeyOfDocument(q, documentId)) ?? deps.config.pki.signerKey;
}

/**
 * Takes the pair of a coming signature of the document, to be given to issueOneTimeCertificate
 * once. For callers that must not wait for a key while holding a lock: with the pool empty, an
 * RSA-2048 pair takes 150 ms or more to make.
 */
export async function takeSignerKey(
  deps: Pick<Deps, 'config' | 'signerKeys'>,
  q: Db | Transaction<Database>,
  documentId: string,
): Promise<TakenSignerKey> {
  const algorithm = await keyAlgorithmOf(deps, q, documentId);
  return { algorithm, pair: await deps.signerKeys.take(algorithm) };
}

export async function issueOneTimeCertificate(
  deps: Pick<Deps, 'config' | 'pki' | 'signerKeys'>,
  q: Db | Transaction<Database>,
  r: OneTimeCertificateRequest,
): Promise<SignerCertificate> {
  const urls = pkiUrls(deps.config.publicUrl);
  const keyAlgorithm = r.key?.algorithm ?? (await keyAlgorithmOf(deps, q, r.documentId));
  // A pair taken beforehand is handed over once, as a pool hands out its pairs.
  const given = r.key?.pair;
  const keys = given ? { take: async () => given } : deps.signerKeys;
  const cert = await issueSignerCertificate(deps.pki.pki, {
    name: r.name,
    email: r.email,
    phone: r.phone,
    uri: r.uri,
    serialNumber: randomSerialHex(),
    now: r.now,
    ocspUrl: urls.ocsp,
    crlUrl: urls.crl,
    caIssuersUrl: urls.issuingCer,
    keys,
    keyAlgorithm,
    validityDays: deps.config.pki.signerCertDays,
  });
  await recordIssuedCertificate(q, {
    serialHex: cert.serialHex,
    kind: r.kind,
    subject: r.name,
    documentId: r.documentId,
    signerRowId: r.signerRowId ?? null,
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
  });
  return cert;
}
