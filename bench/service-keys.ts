// `node bin/run-ts.js bench/service-keys.ts`: signing with the service's keys in a PKCS#11 token
// (SoftHSM2, Debian's softhsm2, in a temporary token directory) beside the same keys in this
// process, and the cost of a fresh key pair per signature in each, which decides whether the
// per-signature signer keys could live in the token (docs/performance.md, "Service keys in a
// token"). Prints figures; asserts nothing.
//
// Environment: BENCH_KEYS_SIGNATURES (default 300: signatures per key and mode), BENCH_KEYS_PAIRS
// (default 20: key pairs generated per kind), BENCH_KEYS_CONCURRENCY (default 8).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pkcs11KeyStore } from '../src/pki/pkcs11-key.js';
import { Pkcs11Token } from '../src/pki/pkcs11-token.js';
import { generateKeyPair, type KeyKind } from '../src/pki/primitives.js';
import { type ServiceKey, type ServiceKeyRole, softwareKeyStore } from '../src/pki/service-key.js';

const SIGNATURES = Number(process.env.BENCH_KEYS_SIGNATURES ?? 300);
const PAIRS = Number(process.env.BENCH_KEYS_PAIRS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_KEYS_CONCURRENCY ?? 8);
const MODULE = '/usr/lib/softhsm/libsofthsm2.so';

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const ms = (n: number) => n.toFixed(n < 1 ? 3 : 2);

/** p50 and p99 of one signature at a time, and signatures per second with CONCURRENCY at once. */
async function measure(key: ServiceKey): Promise<string> {
  // ~1 KB: the size of a TBSCertificate or of a time stamp's signed attributes.
  const data = randomBytes(1024);
  for (let i = 0; i < 10; i += 1) {
    await key.sign(data); // warm-up: sessions opened, handles found
  }
  const times: number[] = [];
  for (let i = 0; i < SIGNATURES; i += 1) {
    const start = process.hrtime.bigint();
    await key.sign(data);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const started = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < SIGNATURES) {
        next += 1;
        await key.sign(data);
      }
    }),
  );
  const perSecond = SIGNATURES / (Number(process.hrtime.bigint() - started) / 1e9);
  return `p50 ${ms(quantile(times, 0.5))} ms  p99 ${ms(quantile(times, 0.99))} ms  c=${CONCURRENCY}: ${perSecond.toFixed(0)}/s`;
}

/** p50 of generating a key pair (and signing once with it), as a per-signature key would need. */
async function generation(make: () => Promise<ServiceKey>): Promise<string> {
  const times: number[] = [];
  for (let i = 0; i < PAIRS; i += 1) {
    const start = process.hrtime.bigint();
    await (await make()).sign(Buffer.from('one signature'));
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return `p50 ${ms(quantile(times, 0.5))} ms  p99 ${ms(quantile(times, 0.99))} ms  (${PAIRS} pairs)`;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'sello-bench-keys-'));
  try {
    mkdirSync(join(dir, 'tokens'));
    writeFileSync(
      join(dir, 'softhsm2.conf'),
      `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`,
    );
    process.env.SOFTHSM2_CONF = join(dir, 'softhsm2.conf');
    const init = spawnSync('softhsm2-util', ['--init-token', '--free', '--label', 'bench', '--pin', '1111', '--so-pin', '222222']);
    if (init.status !== 0) {
      throw new Error(`softhsm2-util (Debian package softhsm2) failed: ${init.stderr}`);
    }
    const token = await Pkcs11Token.open({ modulePath: MODULE, tokenLabel: 'bench', pin: '1111', maxSessions: CONCURRENCY });
    let serial = 0;
    const labels = (): Record<ServiceKeyRole, string> => {
      serial += 1;
      return { root: `r${serial}`, issuing: `ca${serial}`, tsa: `tsa${serial}`, ocsp: `ocsp${serial}` };
    };
    const kinds: KeyKind[] = ['rsa-3072', 'rsa-2048', 'ecdsa-p256'];
    console.log(`Service keys: ${SIGNATURES} signatures of 1 KB per key, one at a time, then ${CONCURRENCY} at once`);
    for (const kind of kinds) {
      const inToken = await new Pkcs11KeyStore(token, labels()).create('issuing', kind);
      const inProcess = await softwareKeyStore.create('issuing', kind);
      console.log(`  ${kind.padEnd(10)} software  ${await measure(inProcess.key)}`);
      console.log(`  ${kind.padEnd(10)} token     ${await measure(inToken.key)}`);
    }
    console.log('A fresh key pair per signature (generation + one signature):');
    for (const kind of ['rsa-2048', 'ecdsa-p256'] as const) {
      console.log(`  ${kind.padEnd(10)} software  ${await generation(async () => (await softwareKeyStore.create('issuing', kind)).key)}`);
      console.log(
        `  ${kind.padEnd(10)} token     ${await generation(async () => (await new Pkcs11KeyStore(token, labels()).create('issuing', kind)).key)}`,
      );
    }
    // The pool the service keeps its per-signature keys in generates without exporting them.
    const start = process.hrtime.bigint();
    await generateKeyPair('rsa-2048', false);
    console.log(
      `(one non-extractable RSA-2048 pair as the signer key pool makes it: ${ms(Number(process.hrtime.bigint() - start) / 1e6)} ms)`,
    );
    token.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
