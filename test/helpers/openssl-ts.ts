// `openssl ts -verify`, an RFC 3161 verifier independent of the service's: a token (DER, not the
// whole reply) against a digest or the data itself, trusting one root. The token and the root go
// to temporary files; the output is returned as openssl printed it.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function opensslTsVerify(
  token: Uint8Array,
  against: { digestHex: string } | { data: Uint8Array },
  rootPem: string,
  /** untrustedPem: certificates that may complete the TSA's path; at: the time the path is judged at (-attime). */
  opts: { untrustedPem?: string; at?: Date } = {},
): Promise<{ ok: boolean; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'sello-ts-verify-'));
  try {
    writeFileSync(join(dir, 'tok.der'), token);
    writeFileSync(join(dir, 'root.pem'), rootPem);
    const subject = 'digestHex' in against ? ['-digest', against.digestHex] : ['-data', join(dir, 'data.bin')];
    if ('data' in against) {
      writeFileSync(join(dir, 'data.bin'), against.data);
    }
    const extra: string[] = [];
    if (opts.untrustedPem) {
      writeFileSync(join(dir, 'untrusted.pem'), opts.untrustedPem);
      extra.push('-untrusted', join(dir, 'untrusted.pem'));
    }
    if (opts.at) {
      extra.push('-attime', String(Math.floor(opts.at.getTime() / 1000)));
    }
    const args = ['ts', '-verify', ...subject, '-in', join(dir, 'tok.der'), '-token_in', '-CAfile', join(dir, 'root.pem'), ...extra];
    try {
      const { stdout, stderr } = await run('openssl', args, { encoding: 'utf8' });
      return { ok: /^Verification: OK$/m.test(stdout), output: `${stdout}${stderr}`.trim() };
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? e.message}`.trim() };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
