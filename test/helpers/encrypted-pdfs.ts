// Encrypted PDFs for the tests: made by qpdf (an independent tool), protected by an owner password
// only (an empty user password: every reader opens them) or by a user password; and signed
// incrementally, still encrypted, by the PDF library's own signer (a signer foreign to the service).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CryptoKeySigner, PDF } from '@libpdf/core';
import { classicPdf } from './hostile-pdfs.js';
import type { TestSigner } from './openssl-pki.js';

export type Encryption = 'RC4-128' | 'AES-128' | 'AES-256';

/** qpdf's arguments for each algorithm (RC4 is refused as weak unless allowed). */
const QPDF_KEY: Record<Encryption, string[]> = {
  'RC4-128': ['128', '--use-aes=n'],
  'AES-128': ['128', '--use-aes=y'],
  'AES-256': ['256'],
};

function qpdf(bytes: Uint8Array, args: string[]): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'sello-qpdf-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), bytes);
    execFileSync('qpdf', [...args, join(dir, 'in.pdf'), join(dir, 'out.pdf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    return readFileSync(join(dir, 'out.pdf'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `bytes` encrypted by qpdf with an empty user password and an owner password, and permissions as
 * bank statements carry them: printing allowed, changes and form filling not.
 */
export function encryptOwnerOnly(bytes: Uint8Array, encryption: Encryption, qpdfOptions: string[] = []): Buffer {
  return qpdf(bytes, [
    ...qpdfOptions,
    '--allow-weak-crypto',
    '--encrypt',
    '',
    'owner-secret',
    ...QPDF_KEY[encryption],
    '--modify=none',
    '--extract=n',
    '--',
  ]);
}

/** `bytes` encrypted by qpdf with a user password: it cannot be opened without it. */
export function encryptWithUserPassword(bytes: Uint8Array, encryption: Encryption): Buffer {
  return qpdf(bytes, ['--allow-weak-crypto', '--encrypt', 'user-secret', 'owner-secret', ...QPDF_KEY[encryption], '--']);
}

/** What qpdf says of the file's encryption ("File is not encrypted", or the parameters). */
export function qpdfEncryption(bytes: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), 'sello-qpdf-'));
  try {
    writeFileSync(join(dir, 'f.pdf'), bytes);
    return execFileSync('qpdf', ['--show-encryption', join(dir, 'f.pdf')], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A PAdES signature by `signer`, added incrementally by the PDF library to the file as it is (encrypted or not). */
export async function signWithLibrary(bytes: Uint8Array, signer: TestSigner): Promise<Uint8Array> {
  const pdf = await PDF.load(bytes);
  const key = new CryptoKeySigner(signer.privateKey, signer.certificateDer, 'RSA', 'RSASSA-PKCS1-v1_5', signer.chainDer.slice(1));
  return (await pdf.sign({ signer: key, reason: 'Conforme' })).bytes;
}

/**
 * A file whose /Encrypt sits in a cross-reference stream with 8-byte offsets (as pyHanko writes
 * them; PDF 32000-1 sets no maximum, the library accepts 6 at most): the library reads it only by
 * scanning for objects, and loses its encryption on the way.
 */
export function encryptionInUnreadableXrefPdf(): Buffer {
  const base = classicPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>',
    `<< /Filter /Standard /V 2 /R 3 /Length 128 /P -4 /O <${'11'.repeat(32)}> /U <${'22'.repeat(32)}> >>`,
  ]);
  const text = base.toString('latin1');
  const xrefAt = text.indexOf('xref\n');
  const offsets = [...text.matchAll(/\d+ 0 obj/g)].map((m) => m.index ?? 0);
  const row = (t: number, f2: number, f3: number) => {
    const r = Buffer.alloc(11);
    r.writeUInt8(t, 0);
    r.writeBigUInt64BE(BigInt(f2), 1);
    r.writeUInt16BE(f3, 9);
    return r;
  };
  const rows = Buffer.concat([row(0, 0, 65535), ...offsets.map((o) => row(1, o, 0)), row(1, xrefAt, 0)]);
  const id = '<00112233445566778899aabbccddeeff>';
  return Buffer.concat([
    Buffer.from(text.slice(0, xrefAt), 'latin1'),
    Buffer.from(
      `5 0 obj\n<< /Type /XRef /Size 6 /W [1 8 2] /Root 1 0 R /Encrypt 4 0 R /ID [${id} ${id}] /Length ${rows.length} >>\nstream\n`,
    ),
    rows,
    Buffer.from(`\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`),
  ]);
}
