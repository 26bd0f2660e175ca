// The two signers the verifier tests sign with: Ana García under an RSA key and Bob Smith under
// an EC P-256 key, both issued by one fresh test PKI, with its root in PEM for pdfsig to trust.
import { readFileSync } from 'node:fs';
import { createTestPki, type TestPki, type TestSigner } from './openssl-pki.js';

export interface AnaAndBob {
  pki: TestPki;
  ana: TestSigner;
  bob: TestSigner;
  rootPem: string;
}

/** The caller disposes of `pki` when done; if issuing fails, it is disposed of here. */
export async function anaAndBob(): Promise<AnaAndBob> {
  const pki = await createTestPki();
  try {
    const ana = await pki.issueSigner({ cn: 'Ana García', email: 'ana@example.com' });
    const bob = await pki.issueSigner({ cn: 'Bob Smith', email: 'bob@example.com', keyType: 'ec' });
    return { pki, ana, bob, rootPem: readFileSync(pki.rootPath, 'utf8') };
  } catch (err) {
    pki.dispose();
    throw err;
  }
}
