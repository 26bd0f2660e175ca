// Independent validators for signed PDFs: pdfsig (poppler, with an NSS trust store made by
// certutil) and qpdf. They run without blocking the event loop, because pdfsig checks the signer
// certificate online with the OCSP responder named in it, which may be the test server in this
// very process.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflateSync } from 'node:zlib';

/** The package that installs each tool, for the message when it is missing. */
const PACKAGES: Record<string, string> = { pdfsig: 'poppler-utils', certutil: 'libnss3-tools', qpdf: 'qpdf' };

/**
 * Runs a tool; a non-zero exit is an answer (pdfsig and qpdf --check exit non-zero on verdicts),
 * but a tool that is not installed is an error naming it: a missing validator must fail the test,
 * not pass it with an empty verdict.
 */
async function run(cmd: string, args: string[]): Promise<{ code: number; out: string }> {
  try {
    const r = await promisify(execFile)(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string };
    if (e.code === 'ENOENT') {
      throw new Error(`${cmd} is not installed (Debian package ${PACKAGES[cmd] ?? cmd}): the independent check cannot run`);
    }
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

export interface PdfsigSignature {
  field: string;
  commonName: string;
  valid: boolean;
  trusted: boolean;
  totalDocumentSigned: boolean;
  type: string;
  block: string;
}

/**
 * pdfsig's verdict on every signature of the PDF, trusting `rootPem` (and nothing else). noOcsp:
 * without pdfsig's own online OCSP check (for a file judged with the service's endpoints gone).
 */
export async function pdfsig(
  pdf: Uint8Array,
  rootPem: string,
  opts: { noOcsp?: boolean } = {},
): Promise<{ signatures: PdfsigSignature[]; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'sello-pdfsig-'));
  try {
    writeFileSync(join(dir, 'root.pem'), rootPem);
    writeFileSync(join(dir, 'doc.pdf'), pdf);
    const nss = `sql:${join(dir, 'nss')}`;
    mkdirSync(join(dir, 'nss'));
    const made = await run('certutil', ['-N', '-d', nss, '--empty-password']);
    if (made.code !== 0) {
      throw new Error(`certutil could not make the NSS trust store: ${made.out}`);
    }
    const added = await run('certutil', ['-A', '-d', nss, '-n', 'sello-root', '-t', 'CT,C,C', '-i', join(dir, 'root.pem')]);
    if (added.code !== 0) {
      throw new Error(`certutil could not add the root: ${added.out}`);
    }
    const { out } = await run('pdfsig', [...(opts.noOcsp ? ['-no-ocsp'] : []), '-nssdir', nss, join(dir, 'doc.pdf')]);
    // Either a list of signatures or the sentence for a file without any: anything else (a crash,
    // a usage message) is no verdict, and an empty list would pass for "no signature".
    if (!/^Digital Signature Info of:/m.test(out) && !/does not contain any signatures/.test(out)) {
      throw new Error(`pdfsig gave no verdict:\n${out}`);
    }
    const signatures = out
      .split(/^Signature #\d+:$/m)
      .slice(1)
      .map((block) => ({
        field: /Signature Field Name: (.*)$/m.exec(block)?.[1] ?? '',
        commonName: /Signer Certificate Common Name: (.*)$/m.exec(block)?.[1] ?? '',
        valid: /Signature Validation: Signature is Valid\./.test(block),
        trusted: /Certificate Validation: Certificate is Trusted\./.test(block),
        totalDocumentSigned: /Total document signed/.test(block),
        type: /Signature Type: (.*)$/m.exec(block)?.[1] ?? '',
        block,
      }));
    return { signatures, output: out };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function qpdfCheckAsync(pdf: Uint8Array): Promise<{ ok: boolean; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'sello-qpdf-'));
  try {
    writeFileSync(join(dir, 'f.pdf'), pdf);
    const r = await run('qpdf', ['--check', join(dir, 'f.pdf')]);
    // qpdf exits 0 when sound, 3 with warnings, 2 on errors: anything else is no verdict.
    if (![0, 2, 3].includes(r.code)) {
      throw new Error(`qpdf --check gave no verdict (exit ${r.code}):\n${r.out}`);
    }
    return { ok: r.code === 0, output: r.out };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A small RGBA PNG with a wave drawn across it: a stand-in for a drawn signature. */
export function signaturePng(width = 240, height = 80): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) {
      c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    }
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) {
      c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    }
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, body: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(body.length);
    const tb = Buffer.concat([Buffer.from(type, 'latin1'), body]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(tb));
    return Buffer.concat([len, tb, sum]);
  };
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const curve = height / 2 + (height / 3) * Math.sin((x / width) * 2 * Math.PI);
      raw.set(Math.abs(y - curve) < 4 ? [20, 30, 120, 255] : [255, 255, 255, 0], y * (width * 4 + 1) + 1 + x * 4);
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
