// Where a running server of a data directory listens: recorded even when the directory does not
// exist yet (a fresh `sello api` node on an external database, with its master key given as a
// setting, has made nothing there before it listens).
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordServerAddress } from '../../src/cli/server-address.js';

let root: string | undefined;
afterEach(async () => {
  if (root) {
    await rm(root, { recursive: true, force: true });
  }
});

describe('the recorded server address', () => {
  it('is written into a data directory made for it, readable by its owner only, and removed on stop', async () => {
    root = await mkdtemp(join(tmpdir(), 'sello-address-'));
    const dataDir = join(root, 'never-made');
    const forget = await recordServerAddress(dataDir, 'http://127.0.0.1:3000', 'https://sign.example.com');
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    const file = join(dataDir, 'server.json');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      url: 'http://127.0.0.1:3000',
      pid: process.pid,
      publicUrl: 'https://sign.example.com',
    });
    await forget();
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
  });
});
