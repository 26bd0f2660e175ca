// The verifier against the published attacks on PDF signatures and against each structural rule,
// with valid controls, on files built here byte by byte (helpers/signed-pdfs.ts). Where pdfsig
// (poppler), an independent validator, is given the same file, the test records what it says: it
// checks the digest over the /ByteRange and nothing of what came after, so it accepts signature
// wrapping and every attack that appends a revision.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPdf, type VerifiedPdf } from '../../src/pdf/verify/verify-pdf.js';
import { createTestPki, type TestPki, type TestSigner } from '../helpers/openssl-pki.js';
import { HandPdf, stream } from '../helpers/signed-pdfs.js';
import { pdfsig } from '../helpers/validators.js';

let pki: TestPki;
let ana: TestSigner;
let bob: TestSigner;
let rootPem: string;

beforeAll(async () => {
  pki = await createTestPki();
  ana = await pki.issueSigner({ cn: 'Ana García', email: 'ana@example.com' });
  bob = await pki.issueSigner({ cn: 'Bob Smith', email: 'bob@example.com', keyType: 'ec' });
  rootPem = readFileSync(pki.rootPath, 'utf8');
}, 60_000);
afterAll(() => pki?.dispose());

const verify = (bytes: Uint8Array): Promise<VerifiedPdf> => verifyPdf(bytes, { trustedRootsDer: [pki.rootDer] });
const summary = (r: VerifiedPdf) =>
  r.signatures.map((s) => ({ field: s.fieldName, valid: s.validSignature, rule: s.failedRule, modified: s.modifiedAfterSigning }));
const attackNames = (r: VerifiedPdf) => r.attacks.map((a) => a.name);

async function signedOnce(extra: Parameters<HandPdf['sign']>[1] extends infer O ? Partial<O> : never = {}) {
  return HandPdf.base().sign(pki, { signer: ana, field: 'Ana', timestamp: true, ...extra });
}

describe('valid controls', () => {
  it('one signature: valid, intact, B-T', async () => {
    const pdf = await signedOnce();
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null, modified: false }]);
    expect(r.documentIntegrity).toBe('intact');
    expect(r.signatures[0]).toMatchObject({ level: 'B-T', timestampValid: true, trusted: true, coversDocument: true });
    expect(r.attacks).toEqual([]);
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(
      checked.signatures.map((s) => s.valid),
      checked.output,
    ).toEqual([true]);
  });
});

describe('after signing', () => {
  it('incremental saving: a revision that rewrites the page content', async () => {
    const pdf = (await signedOnce()).update({ 4: stream('BT /F1 18 Tf 50 760 Td (Pay 9000 EUR to Eve) Tj ET') });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null, modified: true }]);
    expect(r.documentIntegrity).toBe('modified');
    expect(r.signatures[0].changes.filter((c) => !c.allowed)).toMatchObject([
      { revision: 3, objectNumber: 4, kind: 'changed', category: 'other' },
    ]);
    expect(attackNames(r)).toEqual(['incremental-saving']);
    // pdfsig: "Signature is Valid", only "not total document signed" hints at the appended revision.
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(checked.signatures.map((s) => [s.valid, s.totalDocumentSigned])).toEqual([[true, false]]);
  });
});
