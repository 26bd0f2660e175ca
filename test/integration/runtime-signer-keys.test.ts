// The runtime's signer keys as the operator configures them: SELLO_SIGNER_KEY_POOL pairs kept ready
// per key type, the operator's type (SELLO_SIGNER_KEY) filled from start in a process that serves
// signer pages, the other type only once a signature asks for it; nothing filled elsewhere.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { SignerKeyPools } from '../../src/pki/key-pool.js';
import { startRuntime, type Runtime } from '../../src/runtime.js';
import { createTestDatabase } from '../helpers/server.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let dataDir: string;
const runtimes: Runtime[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(join(tmpdir(), 'sello-runtime-keys-'));
});
afterAll(async () => {
  for (const r of runtimes) {
    await r.close();
  }
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

async function runtime(env: Record<string, string>, signing: boolean): Promise<SignerKeyPools> {
  const config = loadConfig({ NODE_ENV: 'test', SELLO_DATA_DIR: dataDir, DATABASE_URL: database.url, SELLO_LOG_LEVEL: 'warn', ...env });
  const r = await startRuntime(config, { migrate: true, signing, progress: () => {} });
  runtimes.push(r);
  expect(r.deps.signerKeys).toBeInstanceOf(SignerKeyPools);
  return r.deps.signerKeys as SignerKeyPools;
}

describe('the runtime’s signer key pools', () => {
  it('keeps SELLO_SIGNER_KEY_POOL pairs of the operator’s type ready, and the other type’s once asked for', async () => {
    const pools = await runtime({ SELLO_SIGNER_KEY: 'ecdsa-p256', SELLO_SIGNER_KEY_POOL: '3' }, true);
    expect(pools.defaultAlgorithm).toBe('ecdsa-p256');
    expect(pools.pool('ecdsa-p256').size).toBe(3);
    expect(pools.pool('rsa-2048').size).toBe(3);
    await pools.pool('ecdsa-p256').whenFull();
    expect(pools.pool('ecdsa-p256').available).toBe(3);
    expect(pools.pool('rsa-2048').available).toBe(0);
    await pools.take('rsa-2048');
    await pools.pool('rsa-2048').whenFull();
    expect(pools.pool('rsa-2048').available).toBe(3);
  });

  it('fills nothing ahead of time in a process that serves no signer page', async () => {
    const pools = await runtime({ SELLO_SIGNER_KEY_POOL: '2' }, false);
    expect(pools.defaultAlgorithm).toBe('rsa-2048');
    await pools.pool('rsa-2048').whenFull();
    expect(pools.pool('rsa-2048').available).toBe(0);
    expect((await pools.take('ecdsa-p256')).privateKey.algorithm.name).toBe('ECDSA'); // made on demand
  });
});
