// The pool of signer key pairs generated ahead of time: each pair handed out once, refilled in the
// background, generated on demand when empty, nothing kept or generated after stop(), and the
// pairs it hands to issueSignerCertificate are the ones the certificates certify.
import { spawnSync } from 'node:child_process';
import { X509Certificate, verify } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { KeyPairPool, SignerKeyPools } from '../../src/pki/key-pool.js';
import { generateServicePki, importPki } from '../../src/pki/material.js';
import type { LoadedPki } from '../../src/pki/material-types.js';
import { pkiUrls } from '../../src/pki/pki-urls.js';
import { generateKeyPair, randomSerialHex, subtle } from '../../src/pki/primitives.js';
import { issueSignerCertificate } from '../../src/pki/signer-certificate.js';

/** A generator the test releases one call at a time, handing out numbered (fake) pairs. */
function controlledGenerator() {
  const pending: { resolve: (p: CryptoKeyPair) => void; reject: (e: Error) => void }[] = [];
  let made = 0;
  const generate = () =>
    new Promise<CryptoKeyPair>((resolve, reject) => {
      pending.push({ resolve, reject });
    });
  const settle = async (fail?: Error) => {
    const next = pending.shift();
    if (!next) {
      throw new Error('no generation is waiting');
    }
    if (fail) {
      next.reject(fail);
    } else {
      next.resolve({ id: ++made } as unknown as CryptoKeyPair);
    }
    // Let the pool's loop take the result and ask for the next one.
    await new Promise((r) => setImmediate(r));
  };
  return { generate, settle, waiting: () => pending.length };
}
const id = (pair: CryptoKeyPair) => (pair as unknown as { id: number }).id;

describe('KeyPairPool', () => {
  it('fills in the background one generation at a time, up to its size', async () => {
    const gen = controlledGenerator();
    const pool = new KeyPairPool({ size: 3, generate: gen.generate });
    expect(gen.waiting()).toBe(0); // nothing before start()
    pool.start();
    pool.start();
    expect(gen.waiting()).toBe(1);
    const full = pool.whenFull();
    await gen.settle();
    await gen.settle();
    expect(pool.available).toBe(2);
    expect(gen.waiting()).toBe(1);
    await gen.settle();
    await full;
    expect(pool.available).toBe(3);
    expect(gen.waiting()).toBe(0); // full: nothing more is generated
    pool.stop();
  });

  it('hands each pair out once and refills after every take', async () => {
    const gen = controlledGenerator();
    const pool = new KeyPairPool({ size: 2, generate: gen.generate });
    pool.start();
    await gen.settle();
    await gen.settle();
    const first = await pool.take();
    const second = await pool.take();
    expect([id(first), id(second)]).toEqual([1, 2]);
    expect(pool.available).toBe(0);
    expect(gen.waiting()).toBe(1); // the refill started at the first take
    // Empty: the caller gets a pair generated for it alone (here the refill's is still pending).
    const third = pool.take();
    expect(gen.waiting()).toBe(2);
    await gen.settle(); // the refill's
    await gen.settle(); // the on-demand one
    expect(id(await third)).toBe(4);
    expect(pool.available).toBe(1);
    const fourth = await pool.take();
    expect(id(fourth)).toBe(3);
    expect(new Set([first, second, await third, fourth].map(id)).size).toBe(4);
    pool.stop();
  });

  it('drops its pairs at stop(), and a generation running then is never handed out', async () => {
    const gen = controlledGenerator();
    const pool = new KeyPairPool({ size: 2, generate: gen.generate });
    pool.start();
    await gen.settle();
    expect(pool.available).toBe(1);
    const full = pool.whenFull();
    pool.stop();
    await full; // released by stop()
    expect(pool.available).toBe(0);
    await gen.settle(); // the generation that was running
    expect(pool.available).toBe(0);
    expect(gen.waiting()).toBe(0);
    // A stopped pool still serves, each pair generated on demand.
    const pair = pool.take();
    expect(gen.waiting()).toBe(1);
    await gen.settle();
    expect(id(await pair)).toBe(3);
    expect(pool.available).toBe(0);
    expect(gen.waiting()).toBe(0);
  });

  it('reports a failed background generation, stops retrying, and takes up again at the next take', async () => {
    const gen = controlledGenerator();
    const errors: unknown[] = [];
    const pool = new KeyPairPool({ size: 2, generate: gen.generate, onError: (err) => errors.push(err) });
    pool.start();
    const full = pool.whenFull();
    await gen.settle(new Error('no entropy today'));
    await full; // released by the failure, not left hanging
    expect(errors.map((e) => (e as Error).message)).toEqual(['no entropy today']);
    expect(gen.waiting()).toBe(0);
    const pair = pool.take(); // on demand, and the refill starts again
    expect(gen.waiting()).toBe(2);
    await gen.settle();
    await gen.settle();
    expect(id(await pair)).toBeGreaterThan(0);
    pool.stop();
  });

  it('waits refillDelayMs after a take before refilling (the first fill does not wait), and stop() cancels the wait', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const gen = controlledGenerator();
      const pool = new KeyPairPool({ size: 2, generate: gen.generate, refillDelayMs: 250 });
      pool.start();
      expect(gen.waiting()).toBe(1);
      await gen.settle();
      await gen.settle();
      await pool.take();
      expect(gen.waiting()).toBe(0); // not beside the signature that took the key
      vi.advanceTimersByTime(249);
      expect(gen.waiting()).toBe(0);
      vi.advanceTimersByTime(1);
      expect(gen.waiting()).toBe(1);
      await gen.settle();
      expect(pool.available).toBe(2);
      await pool.take();
      pool.stop();
      vi.advanceTimersByTime(1000);
      expect(gen.waiting()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a size outside 1..1024 and parallel generations outside 1..4', () => {
    expect(() => new KeyPairPool({ size: 0 })).toThrow(RangeError);
    expect(() => new KeyPairPool({ size: 1025 })).toThrow(RangeError);
    expect(() => new KeyPairPool({ size: 1.5 })).toThrow(RangeError);
    expect(new KeyPairPool({ size: 1024 }).size).toBe(1024);
    expect(() => new KeyPairPool({ size: 8, parallel: 0 })).toThrow(RangeError);
    expect(() => new KeyPairPool({ size: 8, parallel: 5 })).toThrow(RangeError);
  });

  it('runs up to `parallel` generations at once, never more than the pairs missing', async () => {
    const gen = controlledGenerator();
    const pool = new KeyPairPool({ size: 3, parallel: 2, generate: gen.generate });
    pool.start();
    expect(gen.waiting()).toBe(2);
    const full = pool.whenFull();
    await gen.settle();
    // One pair ready, one being made: one more is missing, so one more generation, still two at once.
    expect(pool.available).toBe(1);
    expect(gen.waiting()).toBe(2);
    await gen.settle();
    expect(gen.waiting()).toBe(1); // three ready or under way: the lane that finished stops
    await gen.settle();
    await full;
    expect(pool.available).toBe(3);
    expect(gen.waiting()).toBe(0);
    // A deep pool emptied by a burst: the refill runs two at a time again.
    await pool.take();
    await pool.take();
    expect(gen.waiting()).toBe(2);
    pool.stop();
  });

  it('keeps no process alive once stopped', () => {
    // A child starts a pool of real RSA-2048 pairs, takes one and stops it: it must exit by itself
    // (no timer or handle of the pool holds it), once the one generation running has finished. A
    // second pool is left running with a refill due in a minute: its timer must not hold the
    // process either (the spawn's 30 s timeout would kill it).
    const script = [
      "const { KeyPairPool } = await import('./src/pki/key-pool.ts');",
      'const pool = new KeyPairPool({ size: 8 });',
      'pool.start();',
      'await pool.take();',
      'pool.stop();',
      'const waiting = new KeyPairPool({ size: 1, refillDelayMs: 60_000 });',
      'waiting.start();',
      'await waiting.whenFull();',
      'await waiting.take();',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--import', 'tsx/esm', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0); // null if the timeout had to kill it
  });
});

describe('SignerKeyPools', () => {
  it("keeps one pool per key type: the operator's fills at start, the other's at its first take", async () => {
    const asked: string[] = [];
    const pools = new SignerKeyPools({
      defaultAlgorithm: 'ecdsa-p256',
      size: 2,
      generate: async (algorithm) => {
        asked.push(algorithm);
        return { algorithm } as unknown as CryptoKeyPair;
      },
    });
    expect(pools.pool('rsa-2048').size).toBe(2);
    pools.start();
    await pools.pool('ecdsa-p256').whenFull();
    expect(asked).toEqual(['ecdsa-p256', 'ecdsa-p256']);
    expect(pools.pool('rsa-2048').available).toBe(0); // no account asked for RSA yet: nothing made
    const rsa = await pools.take('rsa-2048');
    expect((rsa as unknown as { algorithm: string }).algorithm).toBe('rsa-2048');
    await pools.pool('rsa-2048').whenFull();
    expect(pools.pool('rsa-2048').available).toBe(2); // started by the take
    const ec = await pools.take('ecdsa-p256');
    expect((ec as unknown as { algorithm: string }).algorithm).toBe('ecdsa-p256');
    pools.stop();
    expect(pools.pool('rsa-2048').available).toBe(0);
    expect(pools.pool('ecdsa-p256').available).toBe(0);
    await expect(pools.take('dsa' as 'rsa-2048')).rejects.toThrow(RangeError);
  });

  it('issues certificates of the key type asked for, from real pools', async () => {
    const pki = await importPki(
      await generateServicePki({ organization: 'Sello Pools Test', baseUrl: 'https://sign.example.test', now: new Date() }),
    );
    const urls = pkiUrls('https://sign.example.test');
    const pools = new SignerKeyPools({ size: 1 });
    pools.start();
    const issue = (keyAlgorithm: 'rsa-2048' | 'ecdsa-p256') =>
      issueSignerCertificate(pki, {
        name: 'Ana Pools',
        email: 'ana@example.test',
        serialNumber: randomSerialHex(),
        now: new Date(),
        ocspUrl: urls.ocsp,
        crlUrl: urls.crl,
        keys: pools,
        keyAlgorithm,
      });
    const ec = await issue('ecdsa-p256');
    const rsa = await issue('rsa-2048');
    pools.stop();
    expect(new X509Certificate(ec.certificateDer).publicKey.asymmetricKeyType).toBe('ec');
    expect(new X509Certificate(ec.certificateDer).publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(ec.keyType).toBe('EC');
    expect(new X509Certificate(rsa.certificateDer).publicKey.asymmetricKeyType).toBe('rsa');
    expect(rsa.keyType).toBe('RSA');
  });
});

describe('signer certificates from the pool', () => {
  let pki: LoadedPki;
  const urls = pkiUrls('https://sign.example.test');
  beforeAll(async () => {
    pki = await importPki(
      await generateServicePki({ organization: 'Sello Pool Test', baseUrl: 'https://sign.example.test', now: new Date() }),
    );
  });
  const issue = (keys: Parameters<typeof issueSignerCertificate>[1]['keys'], keyAlgorithm?: 'rsa-2048' | 'ecdsa-p256') =>
    issueSignerCertificate(pki, {
      name: 'Ana Pool',
      email: 'ana@example.test',
      serialNumber: randomSerialHex(),
      now: new Date(),
      ocspUrl: urls.ocsp,
      crlUrl: urls.crl,
      keys,
      keyAlgorithm,
    });

  it('certifies the pair taken from the pool, a different one each time', async () => {
    const pool = new KeyPairPool({ size: 2 });
    pool.start();
    await pool.whenFull();
    expect(pool.available).toBe(2);
    const first = await issue(pool);
    const second = await issue(pool);
    const third = await issue(pool); // the pool is empty or refilling: on demand or fresh from the refill
    pool.stop();
    const data = Buffer.from('document digest');
    const signed = Buffer.from(await subtle.sign({ name: 'RSASSA-PKCS1-v1_5' }, first.privateKey, data));
    expect(verify('sha256', data, new X509Certificate(first.certificateDer).publicKey, signed)).toBe(true);
    const keys = [first, second, third].map((c) =>
      new X509Certificate(c.certificateDer).publicKey.export({ format: 'der', type: 'spki' }).toString('hex'),
    );
    expect(new Set(keys).size).toBe(3);
    expect(first.privateKey.extractable).toBe(false);
    expect(new X509Certificate(first.certificateDer).publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
  });

  it('refuses a pair of another algorithm, or one whose private key can be exported', async () => {
    const pool = new KeyPairPool({ size: 1 });
    await expect(issue(pool, 'ecdsa-p256')).rejects.toThrow(/not a non-extractable ecdsa-p256 signing pair/);
    const extractable = await generateKeyPair('rsa-2048', true);
    await expect(issue({ take: async () => extractable })).rejects.toThrow(/non-extractable rsa-2048/);
    const ec = await generateKeyPair('ecdsa-p256', false);
    await expect(issue({ take: async () => ec })).rejects.toThrow(/non-extractable rsa-2048/);
    expect((await issue({ take: async () => ec }, 'ecdsa-p256')).keyType).toBe('EC');
  });
});
