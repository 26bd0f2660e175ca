// The service PKI for test servers. Generating RSA-3072 CAs takes seconds, so one set of material
// is generated per test process and stored into each test database, as a first start would.
import type { Clock } from '../../src/domain/deps.js';
import { createPkiResponder, type PkiResponder } from '../../src/domain/pki/pki-responses.js';
import { loadPki } from '../../src/domain/pki/load-pki.js';
import { X509Certificate } from 'node:crypto';
import { generateServicePki, normalizeSerialHex, sealPkiMaterial, type PkiMaterial } from '../../src/pki/index.js';
import type { SecretBox } from '../../src/pki/secret-box.js';
import type { Db } from '../../src/store/db.js';
import { recordIssuedCertificate, storePkiMaterial } from '../../src/store/pki-repo.js';

let material: Promise<PkiMaterial> | undefined;

export async function testPki(
  deps: { db: Db; secrets: SecretBox; clock: Clock },
  tsaPolicyOid: string,
  opts: { fresh?: boolean } = {},
): Promise<PkiResponder> {
  // The certificates name http://127.0.0.1 URLs; tests that fetch them use the server's real port.
  const generate = () => generateServicePki({ organization: 'Sello Test', baseUrl: 'http://127.0.0.1', now: new Date() });
  if (!opts.fresh) {
    material ??= generate();
  }
  const own = opts.fresh ? generate() : material!;
  await storePkiMaterial(deps.db, 'generated', sealPkiMaterial(await own, deps.secrets));
  // As a first start does (load-pki.ts): the TSA and OCSP certificates are in the register, so the
  // service's OCSP responder answers "good" for them rather than "unknown".
  for (const [kind, der] of [
    ['tsa', (await own).tsa.certificateDer],
    ['ocsp', (await own).ocsp.certificateDer],
  ] as const) {
    const c = new X509Certificate(der);
    await recordIssuedCertificate(deps.db, {
      serialHex: normalizeSerialHex(c.serialNumber),
      kind,
      subject: c.subject,
      notBefore: new Date(c.validFrom),
      notAfter: new Date(c.validTo),
    });
  }
  const pki = await loadPki(deps, { organization: 'Sello Test' }, 'http://127.0.0.1');
  return createPkiResponder(deps, pki, tsaPolicyOid);
}
