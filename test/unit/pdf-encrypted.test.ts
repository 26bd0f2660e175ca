// Encrypted PDFs: a file protected by an owner password only is read as readers read it and can
// be decrypted into a sound copy; one that needs a password is refused; a signed encrypted file
// verifies as readers verify it (the hash over the file's bytes, the CMS as written, the objects
// compared decrypted). Files encrypted by qpdf, signed by the PDF library's own signer.
import { readFileSync } from 'node:fs';
import { PDF, rgb } from '@libpdf/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAsReaders } from '../../src/pdf/encrypted-pdf.js';
import { inspectPdf, PdfInputError, refuseIfPasswordNeeded } from '../../src/pdf/inspect-pdf.js';
import { verifyPdf } from '../../src/pdf/verify/verify-pdf.js';
import {
  encryptionInUnreadableXrefPdf,
  encryptOwnerOnly,
  encryptWithUserPassword,
  type Encryption,
  qpdfEncryption,
  signWithLibrary,
} from '../helpers/encrypted-pdfs.js';
import { createTestPki, type TestPki, type TestSigner } from '../helpers/openssl-pki.js';
import { A4, makePdf, pdfShownText, qpdfCheck } from '../helpers/pdfs.js';
import { pdfsig } from '../helpers/validators.js';

const ALGORITHMS: Encryption[] = ['RC4-128', 'AES-128', 'AES-256'];

let plain: Buffer;
let pki: TestPki;
let signer: TestSigner;

beforeAll(async () => {
  plain = await makePdf([A4, A4]);
  pki = await createTestPki();
  signer = await pki.issueSigner({ cn: 'Firmante Externo', email: 'externo@example.com' });
});

const inputError = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as PdfInputError,
  );

describe('a file protected by an owner password only', () => {
  it.each(ALGORITHMS)('%s: its decrypted copy is unencrypted, sound for qpdf, and shows the same pages and text', async (encryption) => {
    const encrypted = encryptOwnerOnly(plain, encryption);
    expect(qpdfEncryption(encrypted)).toMatch(/User password = \s*$/m);
    const info = await inspectPdf(encrypted, { maxPages: 10, encrypted: 'decrypt' });
    expect(info.pageCount).toBe(2);
    expect(info.decrypted?.encryption).toBe(encryption);
    const copy = Buffer.from(info.decrypted!.bytes);
    expect(qpdfEncryption(copy)).toMatch(/File is not encrypted/);
    expect(qpdfCheck(copy).output).toMatch(/No syntax or stream encoding errors found/);
    expect(pdfShownText(copy)).toBe(pdfShownText(plain));
    expect(pdfShownText(copy)).toMatch(/Sello test page 2/);
  });

  it('is read as it is when asked, and refused unless asked, saying what protects it', async () => {
    const encrypted = encryptOwnerOnly(plain, 'AES-128');
    const read = await inspectPdf(encrypted, { maxPages: 10, encrypted: 'read' });
    expect(read.pageCount).toBe(2);
    expect(read.decrypted).toBeUndefined();
    const refused = await inputError(inspectPdf(encrypted, { maxPages: 10 }));
    expect(refused).toBeInstanceOf(PdfInputError);
    expect(refused).toMatchObject({ problem: 'ENCRYPTED', message: expect.stringMatching(/owner password only/) });
  });

  it('is refused, not decrypted, when it is signed: a decrypted copy would break its signatures', async () => {
    const signed = await signWithLibrary(encryptOwnerOnly(plain, 'AES-256'), signer);
    const refused = await inputError(inspectPdf(signed, { maxPages: 10, encrypted: 'decrypt' }));
    expect(refused).toMatchObject({ problem: 'ENCRYPTED', message: expect.stringMatching(/signed/) });
  });
});

describe('a file that needs a password to open', () => {
  it.each(ALGORITHMS)('%s: refused whatever the policy, saying a password is needed', async (encryption) => {
    const locked = encryptWithUserPassword(plain, encryption);
    for (const encrypted of ['refuse', 'read', 'decrypt'] as const) {
      const refused = await inputError(inspectPdf(locked, { maxPages: 10, encrypted }));
      expect(refused).toMatchObject({ problem: 'ENCRYPTED', message: expect.stringMatching(/password that is needed to open it/) });
    }
    await expect(refuseIfPasswordNeeded(locked)).rejects.toMatchObject({ problem: 'ENCRYPTED' });
    await expect(refuseIfPasswordNeeded(encryptOwnerOnly(plain, encryption))).resolves.toBeUndefined();
    await expect(refuseIfPasswordNeeded(plain)).resolves.toBeUndefined();
  });
});

describe('a trailer whose /Encrypt is null', () => {
  // §7.3.7: an entry whose value is null is no entry. Some writers leave `/Encrypt null` in a
  // trailer; the library counts the key alone, and the file was refused as needing a password.
  const withNullEncrypt = (bytes: Uint8Array) =>
    Buffer.from(
      Buffer.from(bytes)
        .toString('latin1')
        .replace(/trailer\s*<<\s*/, (m) => `${m}/Encrypt null\n`),
      'latin1',
    );

  it('is a plain file: inspected, signed and verified intact, never refused as encrypted', async () => {
    const file = withNullEncrypt(plain);
    expect((await PDF.load(file)).isEncrypted).toBe(true);
    const info = await inspectPdf(file, { maxPages: 10 });
    expect(info.pageCount).toBe(2);
    expect(info.decrypted).toBeUndefined();
    await expect(refuseIfPasswordNeeded(file)).resolves.toBeUndefined();
    const signed = await signWithLibrary(file, signer);
    const v = await verifyPdf(signed, { trustedRootsDer: [pki.rootDer] });
    expect(v.signatures.map((s) => s.validSignature)).toEqual([true]);
    expect(v.documentIntegrity).toBe('intact');
  });
});

describe('a file whose encryption the reader cannot see', () => {
  it('is refused to the verifier rather than read as ciphertext', async () => {
    const file = encryptionInUnreadableXrefPdf();
    const lenient = await PDF.load(file);
    expect([lenient.isEncrypted, lenient.recoveredViaBruteForce]).toEqual([false, true]);
    await expect(refuseIfPasswordNeeded(file)).rejects.toMatchObject({
      problem: 'ENCRYPTED',
      message: expect.stringMatching(/encryption cannot be read here/),
    });
  });
});

describe('verifying a signed, encrypted file', () => {
  it.each(ALGORITHMS)('%s: the signature is valid and the document intact, as pdfsig finds it', async (encryption) => {
    const signed = await signWithLibrary(encryptOwnerOnly(plain, encryption), signer);
    const v = await verifyPdf(signed, { trustedRootsDer: [pki.rootDer] });
    expect(v.signatures).toHaveLength(1);
    expect(v.signatures[0], JSON.stringify(v.signatures[0].problem ?? v.signatures[0].failedRule)).toMatchObject({
      validSignature: true,
      trusted: true,
      modifiedAfterSigning: false,
      reason: 'Conforme',
    });
    expect(v.documentIntegrity).toBe('intact');
    expect(v.attacks).toEqual([]);
    const independent = await pdfsig(signed, readFileSync(pki.rootPath, 'utf8'));
    expect(independent.signatures.map((s) => s.valid)).toEqual([true]);
  });

  it('reads the CMS as written: decrypting it (as the library does with every string) breaks an RC4 signature', async () => {
    const signed = await signWithLibrary(encryptOwnerOnly(plain, 'RC4-128'), signer);
    const contentsOf = async (pdf: PDF) => {
      const field = pdf.getForm()!.getSignatureFields()[0];
      return (pdf.getObject(field.getDict().getRef('V')!) as unknown as { getString(k: string): { bytes: Uint8Array } }).getString(
        'Contents',
      ).bytes;
    };
    const written = Buffer.from(await contentsOf(await loadAsReaders(signed)));
    expect(written[0]).toBe(0x30); // a DER SEQUENCE: the CMS as the signer wrote it
    expect(Buffer.from(await contentsOf(await PDF.load(signed))).equals(written)).toBe(false);
  });

  it('sees a change after signing in the decrypted objects', async () => {
    const signed = await signWithLibrary(encryptOwnerOnly(plain, 'AES-128'), signer);
    const pdf = await PDF.load(signed);
    pdf.getPage(0)!.drawText('Pay 1,000,000 EUR to Mallory', { x: 50, y: 400, size: 14, color: rgb(0, 0, 0) });
    const tampered = await pdf.save({ incremental: true });
    expect(Buffer.from(tampered.subarray(0, signed.length)).equals(Buffer.from(signed))).toBe(true);
    const v = await verifyPdf(tampered, { trustedRootsDer: [pki.rootDer] });
    expect(v.signatures[0].validSignature).toBe(true);
    expect(v.signatures[0].modifiedAfterSigning).toBe(true);
    expect(v.documentIntegrity).toBe('modified');
  });
});
