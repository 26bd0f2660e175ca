// The independent validators the tests lean on must fail when they cannot run: a missing pdfsig or
// qpdf that answered "no signatures" or "not sound" would make a check pass that never ran.
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { makePdf, qpdfCheck } from '../helpers/pdfs.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';

const path = process.env.PATH;
let dir: string | undefined;

/** A self-signed certificate to trust (pdfsig's trust store wants one). */
function rootPem(): string {
  const d = mkdtempSync(join(tmpdir(), 'sello-root-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-subj',
        '/CN=Root',
        '-keyout',
        join(d, 'k'),
        '-out',
        join(d, 'c'),
      ],
      {
        stdio: 'ignore',
      },
    );
    return readFileSync(join(d, 'c'), 'utf8');
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
}
afterEach(() => {
  process.env.PATH = path;
  if (dir) {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A PATH holding only the named tools (linked from where the machine has them). */
function onlyTools(...tools: string[]): void {
  dir = mkdtempSync(join(tmpdir(), 'sello-path-'));
  for (const tool of tools) {
    symlinkSync(execFileSync('which', [tool], { encoding: 'utf8' }).trim(), join(dir, tool));
  }
  process.env.PATH = dir;
}

describe('validators that are not installed', () => {
  it('pdfsig: an error naming pdfsig, not an empty list', async () => {
    const pdf = await makePdf();
    const root = rootPem();
    expect((await pdfsig(pdf, root)).output).toContain('does not contain any signatures');
    onlyTools('certutil');
    await expect(pdfsig(pdf, root)).rejects.toThrow(/pdfsig is not installed \(Debian package poppler-utils\)/);
  });

  it('certutil (the trust store pdfsig needs): an error naming certutil', async () => {
    const root = rootPem();
    onlyTools('pdfsig');
    await expect(pdfsig(await makePdf(), root)).rejects.toThrow(/certutil is not installed/);
  });

  it('qpdf: an error naming qpdf, not "not sound"', async () => {
    const pdf = await makePdf();
    expect((await qpdfCheckAsync(pdf)).ok).toBe(true);
    onlyTools();
    await expect(qpdfCheckAsync(pdf)).rejects.toThrow(/qpdf is not installed/);
    expect(() => qpdfCheck(pdf)).toThrow(/qpdf is not installed/);
  });
});
