// `sello blobs migrate` and `sello blobs check` as an operator runs them, against a test server's
// database and data directory and a real S3-compatible server on loopback: a migration copies
// every sound blob and reports the damaged one, and a check finds the rows whose blob is missing
// or corrupt, in the data directory and in the bucket.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openBlobStore } from '../../src/store/blob-store.js';
import { makePdf } from '../helpers/pdfs.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'sello.js');

let s: TestServer;
let s3: TestS3Server;
/** Three documents, each with a PDF of its own: its ticket and its blob's key. */
const docs: { ticket: string; key: string }[] = [];

beforeAll(async () => {
  s = await startTestServer();
  s3 = await startS3Server();
  for (let i = 0; i < 3; i++) {
    const pdf = await makePdf([{ width: 500 + i, height: 700 }]);
    const r = await s.client.createDocument({
      b64_doc: pdf.toString('base64'),
      name: `blob-${i}`,
      stickers: [{ authority: 'EMAIL_LINK', data: `s${i}@example.com`, page: 0, rect: { lx: 10, ly: 10, tx: 100, ty: 60 } }],
    });
    const row = await s.deps.db
      .selectFrom('documents')
      .select(['original_sha256'])
      .where('ticket', '=', r.document_ticket)
      .executeTakeFirstOrThrow();
    docs.push({ ticket: r.document_ticket, key: row.original_sha256 });
  }
});
afterAll(async () => {
  await s?.close();
  await s3?.stop();
});

const fsFile = (key: string) => join(s.dataDir, 'blobs', key.slice(0, 2), key.slice(2, 4), key);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** `sello blobs ARGS` on the test server's database and data directory (and the bucket with `s3`). */
function selloBlobs(args: string[], bucket = false): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(SELLO_|PG|DATABASE_URL$|PORT$|HOST$|AWS_)/.test(k)) {
      env[k] = v;
    }
  }
  Object.assign(env, { NODE_ENV: 'test', SELLO_DATA_DIR: s.dataDir, DATABASE_URL: s.connectionString }, bucket ? s3.env : {});
  const child = spawn(process.execPath, [BIN, 'blobs', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('sello blobs', () => {
  it('migrates the sound blobs, reports the damaged one, and check finds missing and corrupt blobs in either store', async () => {
    const [a, b, c] = docs;
    const intact = await selloBlobs(['check']);
    expect(intact.stderr).not.toMatch(/Error/);
    expect(intact.stdout).toMatch(/all intact/);
    expect(intact.code).toBe(0);

    // Refused without a bucket to copy to: nothing to migrate into.
    const noBucket = await selloBlobs(['migrate']);
    expect(noBucket.code).toBe(2);
    expect(noBucket.stderr).toMatch(/SELLO_BLOB_STORE=s3/);

    // A's bytes damaged in the data directory: not copied, reported; the others copied intact.
    const damaged = Buffer.from('%PDF-1.7 not what was signed');
    await writeFile(fsFile(a.key), damaged);
    const migrated = await selloBlobs(['migrate', '--json'], true);
    expect(migrated.stderr).not.toMatch(/Error/);
    expect(migrated.code).toBe(1);
    const m = JSON.parse(migrated.stdout) as {
      copied: number;
      present: number;
      corrupt: { key: string; actual: string }[];
      failed: unknown[];
    };
    expect(m.corrupt).toEqual([{ key: a.key, actual: sha256(damaged) }]);
    expect(m.failed).toEqual([]);
    expect(m.copied).toBeGreaterThanOrEqual(2);
    const bucket = await openBlobStore(loadConfig({ SELLO_DATA_DIR: s.dataDir, ...s3.env }));
    try {
      expect(await bucket.blobs.has(a.key)).toBe(false);
      for (const d of [b, c]) {
        expect(sha256(await bucket.blobs.get(d.key))).toBe(d.key);
      }
    } finally {
      bucket.close();
    }

    // Run again: everything sound is already there; A is still reported.
    const again = await selloBlobs(['migrate'], true);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain(`corrupt in the source, not copied: ${a.key}`);
    expect(again.stdout).toMatch(new RegExp(`: 0 copied \\(0\\.0 MB\\), ${m.copied} already there, 1 corrupt in the source, 0 failed`));

    // In the bucket: A missing (never copied), C damaged behind the server's back.
    await writeFile(s3.objectFile(c.key), damaged);
    const inBucket = await selloBlobs(['check'], true);
    expect(inBucket.code).toBe(1);
    expect(inBucket.stdout).toContain(`missing: ${a.key}, named by documents.original_sha256 of document ${a.ticket}`);
    expect(inBucket.stdout).toContain(`missing: ${a.key}, named by documents.source_sha256 of document ${a.ticket}`);
    expect(inBucket.stdout).toContain(
      `corrupt (its bytes hash to ${sha256(damaged)}): ${c.key}, named by documents.original_sha256 of document ${c.ticket}`,
    );
    expect(inBucket.stdout).not.toContain(b.key);
    expect(inBucket.stdout).toMatch(/^s3:\/\/.*; 2 missing or corrupt, named by 4 rows$/m);

    // In the data directory: A corrupt, B removed.
    await rm(fsFile(b.key));
    const inFiles = await selloBlobs(['check', '--json']);
    expect(inFiles.code).toBe(1);
    const f = JSON.parse(inFiles.stdout) as {
      problems: { key: string; problem: string; rows: { table: string; column: string; row: string }[] }[];
    };
    expect(f.problems.map((p) => [p.key, p.problem]).sort()).toEqual(
      [
        [a.key, 'corrupt'],
        [b.key, 'missing'],
      ].sort(),
    );
    expect(f.problems.find((p) => p.key === b.key)?.rows).toEqual(
      expect.arrayContaining([{ table: 'documents', column: 'original_sha256', row: `document ${b.ticket}` }]),
    );
  });
});
