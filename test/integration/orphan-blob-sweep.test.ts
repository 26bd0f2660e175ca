// The orphan sweep removes blobs no row names once past their grace period, keeps every blob a row
// names (each column of store/blob-references.ts) and every recent one, and never loses the bytes
// of a creation racing it with the same bytes (store/blob-fence.ts); with blobs on files and in an
// S3-compatible bucket, through the BlobStore contract alone.
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/domain/deps.js';
import { sweepOrphanBlobs } from '../../src/domain/lifecycle/sweep-orphan-blobs.js';
import { BLOB_COLUMNS, BLOB_JSON_ARRAYS, NOT_BLOB_COLUMNS } from '../../src/store/blob-references.js';
import { makePdf } from '../helpers/pdfs.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

let s: TestServer;
let s3: TestS3Server;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
/** A clock past the grace period of every blob written so far. */
const later = (): Clock => ({ now: () => new Date(Date.now() + (s.deps.config.lifecycle.orphanGraceHours + 1) * 3_600_000) });
const sweepLater = (hooks?: Parameters<typeof sweepOrphanBlobs>[1]) => sweepOrphanBlobs({ ...s.deps, clock: later() }, hooks);

async function keys(): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const e of s.deps.blobs.list()) {
    out.add(e.key);
  }
  return out;
}

const sticker = (email: string) => ({ authority: 'EMAIL_LINK' as const, data: email, page: 0, rect: { lx: 10, ly: 10, tx: 100, ty: 60 } });

beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(() => s3?.stop());

describe('the list of columns that name blobs', () => {
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s?.close());

  it('covers every column of the schema named like a blob key or holding attachments', async () => {
    const db = new pg.Client({ connectionString: s.connectionString });
    await db.connect();
    try {
      const { rows } = await db.query<{ c: string }>(
        `select table_name || '.' || column_name as c from information_schema.columns
          where table_schema = 'public' and (column_name ~ '(sha256|_blob)$' or column_name = 'attachments')`,
      );
      const listed = [...BLOB_COLUMNS, ...BLOB_JSON_ARRAYS].map((c) => `${c.table}.${c.column}`);
      expect(rows.map((r) => r.c).sort()).toEqual([...listed, ...Object.keys(NOT_BLOB_COLUMNS)].sort());
    } finally {
      await db.end();
    }
  });
});

describe.each(['files', 'bucket'] as const)('sweepOrphanBlobs, blobs in %s', (store) => {
  beforeAll(async () => {
    s = await startTestServer(store === 'bucket' ? { env: { ...s3.env, SELLO_S3_PREFIX: `${randomBytes(4).toString('hex')}/` } } : {});
  });
  afterAll(() => s?.close());

  it('removes old unreferenced blobs and keeps referenced and recent ones', async () => {
    const pdf = await makePdf();
    const doc = await s.client.createDocument({ b64_doc: pdf.toString('base64'), name: 'kept', stickers: [sticker('a@example.com')] });
    await s.client.request('POST', '/developers/template/save', {
      template_name: 'kept template',
      template_type: 'html',
      template_data: Buffer.from('<p>{{name}}</p>').toString('base64'),
    });
    const orphan = randomBytes(1000);
    const orphanKey = await s.deps.blobs.put(orphan);
    const before = await keys();
    expect(before.has(orphanKey)).toBe(true);
    expect(before.has(sha256(pdf))).toBe(true);

    // Within the grace period: nothing is removed.
    expect((await sweepOrphanBlobs(s.deps)).deleted).toBe(0);
    expect(await keys()).toEqual(before);

    const swept = await sweepLater();
    expect(swept).toMatchObject({ examined: before.size, deleted: 1, bytes: 1000 });
    const after = await keys();
    expect(after.has(orphanKey)).toBe(false);
    expect(after.size).toBe(before.size - 1);
    // The document's file still downloads, and is the same bytes.
    const file = await s.client.downloadDocument('original', doc.document_ticket);
    expect(sha256(file.bytes)).toBe(sha256(pdf));
    // A second run finds nothing more.
    expect((await sweepLater()).deleted).toBe(0);
  });

  it('never loses the bytes of a creation that stores the same bytes while the sweep deletes them', async () => {
    // Bytes left by an earlier failed creation: old, and named by no row.
    const pdf = await makePdf([{ width: 400, height: 300 }]);
    const key = await s.deps.blobs.put(pdf);
    const admin = new pg.Client({ connectionString: s.connectionString });
    await admin.connect();
    let created: ReturnType<typeof s.client.createDocument> | undefined;
    let createdDone = false;
    try {
      const swept = await sweepLater({
        // The sweep has checked that no row names the blob and holds its lock: now a creation of
        // the same bytes puts them (refreshing the blob the sweep is about to delete) and inserts
        // its row, which waits for the lock until the sweep has deleted and committed.
        beforeDelete: async (k) => {
          expect(k).toBe(key);
          created = s.client.createDocument({ b64_doc: pdf.toString('base64'), name: 'racing', stickers: [sticker('r@example.com')] });
          void created.then(
            () => {
              createdDone = true;
            },
            () => {
              createdDone = true;
            },
          );
          for (;;) {
            const { rows } = await admin.query<{ n: number }>(
              `select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`,
            );
            if (rows[0].n > 0 || createdDone) {
              return;
            }
            await new Promise((r) => setImmediate(r));
          }
        },
      });
      expect(swept.deleted).toBe(1);
      const doc = await created!;
      expect(createdDone).toBe(true);
      const file = await s.client.downloadDocument('original', doc.document_ticket);
      expect(sha256(file.bytes)).toBe(key);
      expect(await s.deps.blobs.has(key)).toBe(true);
      // And the next sweep keeps them: a row names them now.
      expect((await sweepLater()).deleted).toBe(0);
      expect(await s.deps.blobs.has(key)).toBe(true);
    } finally {
      await admin.end();
    }
  });
});
