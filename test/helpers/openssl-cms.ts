// A signed PDF's first signature as openssl sees it: the CMS from /Contents, the bytes its
// /ByteRange covers, and `openssl cms -verify` over them against a root.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The first signature's CMS (DER, /Contents without its zero padding) and the bytes it signs. */
export function firstSignature(pdf: Buffer): { der: Buffer; signed: Buffer } {
  const text = pdf.toString('latin1');
  const br = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(text)!.slice(1, 5).map(Number);
  const der = derPrefix(Buffer.from(text.slice(br[1] + 1, br[2] - 1), 'hex'));
  const signed = Buffer.concat([pdf.subarray(br[0], br[0] + br[1]), pdf.subarray(br[2], br[2] + br[3])]);
  return { der, signed };
}

/**
 * The DER value at the start of the /Contents placeholder, cut at the length its header gives:
 * stripping the trailing zero padding instead would also strip a last byte of the CMS that is
 * zero (a signature's last byte is, one time in 256).
 */
export function derPrefix(bytes: Buffer): Buffer {
  const first = bytes[1];
  if (first < 0x80) {
    return bytes.subarray(0, 2 + first);
  }
  const n = first & 0x7f;
  const length = bytes.subarray(2, 2 + n).reduce((acc, b) => acc * 256 + b, 0);
  return bytes.subarray(0, 2 + n + length);
}

/**
 * `openssl cms -verify` of `sig` against `rootPem`, its files written in `dir` under `name`;
 * `atTime` (Unix seconds) judges the chain at another moment. `ok` is openssl's own success.
 */
export function opensslCmsVerify(
  dir: string,
  name: string,
  sig: { der: Buffer; signed: Buffer },
  rootPem: string,
  atTime?: number,
): { ok: boolean; out: string } {
  const file = (ext: string) => join(dir, `${name}.${ext}`);
  writeFileSync(file('p7s'), sig.der);
  writeFileSync(file('bin'), sig.signed);
  writeFileSync(file('pem'), rootPem);
  const args = ['cms', '-verify', '-binary', '-inform', 'DER', '-in', file('p7s'), '-content', file('bin')];
  args.push('-CAfile', file('pem'), '-purpose', 'any', ...(atTime === undefined ? [] : ['-attime', String(atTime)]), '-out', '/dev/null');
  const r = spawnSync('openssl', args, { encoding: 'utf8' });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  return { ok: r.status === 0 && /Verification successful/.test(out), out };
}
