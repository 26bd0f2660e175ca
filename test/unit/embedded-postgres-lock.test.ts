// The lock file of the embedded PostgreSQL after a crash: a pid that answers but is not a live
// postmaster (a zombie not yet reaped, or a pid reused by another program) must not be taken for a
// running server, or the next start connects to a port where nothing listens.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningPort } from '../../src/store/embedded-postgres.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sello-pg-lock-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const lockFile = (pid: number, port: number) => `${pid}\n${dir}\n1700000000\n${port}\n/tmp\n127.0.0.1\n  1234   5678\nready\n`;

describe('runningPort', () => {
  it('is undefined without a lock file', async () => {
    expect(await runningPort(join(dir, 'none'))).toBeUndefined();
  });

  it('takes a live pid of another program for a stale lock: undefined, and the file removed', async () => {
    await writeFile(join(dir, 'postmaster.pid'), lockFile(process.pid, 54321));
    expect(await runningPort(dir)).toBeUndefined();
    expect(existsSync(join(dir, 'postmaster.pid'))).toBe(false);
  });

  it('a pid that no longer runs: undefined (Postgres recovers from the stale file itself)', async () => {
    await writeFile(join(dir, 'postmaster.pid'), lockFile(2 ** 22 + 7, 54321));
    expect(await runningPort(dir)).toBeUndefined();
  });
});
