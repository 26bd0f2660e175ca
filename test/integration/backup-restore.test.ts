// `sello backup` then `sello restore` into an empty data directory (a new embedded PostgreSQL, a new
// blob directory), as on a fresh machine: every document's bytes (SHA-256), history chain and
// signatures are as before, the PKI is the same, and signing goes on. Restore refuses to run
// without the backup's master key, with another key, and into a database that is not empty.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runBackup, runRestore } from '../../src/domain/lifecycle/backup.js';
import type { CreatedDocument } from '../../src/client/types.js';
import { loadConfig } from '../../src/config.js';
import { startEmbeddedPostgres } from '../../src/store/embedded-postgres.js';
import { databaseUrl } from '../helpers/database-url.js';
import { makePdf } from '../helpers/pdfs.js';
import { startS3Server } from '../helpers/s3-server.js';
import { openAndSign } from '../helpers/signer-page.js';
import { type TestServer, startTestServer, startTestServerOn } from '../helpers/server.js';
import { pdfsig } from '../helpers/validators.js';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const sticker = (email: string) => ({ authority: 'EMAIL_LINK' as const, data: email, page: 0, rect: { lx: 10, ly: 10, tx: 100, ty: 60 } });
const masterKey = randomBytes(32);
let s: TestServer;
const dirs: string[] = [];
const tempDir = async (name: string) => {
  const d = await mkdtemp(join(tmpdir(), `sello-${name}-`));
  dirs.push(d);
  return d;
};

beforeAll(async () => {
  s = await startTestServer({ masterKey, freshPki: true });
});
afterAll(async () => {
  await s?.close();
  for (const d of dirs) {
    await rm(d, { recursive: true, force: true });
  }
});

async function snapshot(client: TestServer['client'], docs: CreatedDocument[]) {
  return Promise.all(
    docs.map(async (d) => ({
      sha256: sha256((await client.downloadDocument('original', d.document_ticket)).bytes),
      source: sha256((await client.downloadDocument('source', d.document_ticket)).bytes),
      history: await client.documentHistory(d.document_ticket),
      report: await client.signatureReport(d.document_ticket),
    })),
  );
}

describe('sello backup and sello restore', () => {
  it('with blobs in a bucket: --blobs manifest lists them, and restore refuses while one is missing from the bucket', async () => {
    const s3 = await startS3Server();
    const key = randomBytes(32);
    const env = { ...s3.env, SELLO_S3_PREFIX: 'b/' };
    const b = await startTestServer({ masterKey: key, env });
    try {
      const pdf = await makePdf([{ width: 300, height: 300 }]);
      const doc = await b.client.createDocument({
        b64_doc: pdf.toString('base64'),
        name: 'in a bucket',
        stickers: [sticker('e@example.com')],
      });
      const backup = await tempDir('manifest');
      expect(await runBackup({ ...b.deps.config, masterKey: key }, { dir: backup, blobs: 'manifest', json: true })).toBe(0);
      expect((await readdir(backup)).sort()).toEqual(['db', 'manifest.json']);

      const config = (dataDir: string) =>
        loadConfig({ NODE_ENV: 'test', SELLO_DATA_DIR: dataDir, SELLO_MASTER_KEY: key.toString('base64'), ...env });
      // The bucket lost the file: restore names it and changes nothing.
      const gone = await tempDir('bucket-lost');
      await b.deps.blobs.delete(sha256(pdf));
      await expect(runRestore(config(gone), { dir: backup, json: true })).rejects.toThrow(new RegExp(`not in the store \\(${sha256(pdf)}`));
      expect(existsSync(join(gone, 'pg'))).toBe(false);
      // Back from the bucket's versions (here: stored again), the restore goes through.
      await b.deps.blobs.put(pdf);
      const fresh = await tempDir('bucket-restored');
      expect(await runRestore(config(fresh), { dir: backup, json: true })).toBe(0);
      const pg = await startEmbeddedPostgres(fresh);
      let r: TestServer | undefined;
      try {
        r = await startTestServerOn({ databaseUrl: pg.connectionString, dataDir: fresh, masterKey: key, creds: b.creds, env });
        expect(sha256((await r.client.downloadDocument('original', doc.document_ticket)).bytes)).toBe(sha256(pdf));
      } finally {
        await r?.close();
        await pg.stop();
      }
    } finally {
      await b.close();
      await s3.stop();
    }
  });

  it('restores into an empty data directory: same bytes, history chains, signatures and PKI; signing goes on', async () => {
    const signed = await s.client.createDocument({
      b64_doc: (await makePdf()).toString('base64'),
      name: 'signed',
      stickers: [sticker('a@example.com'), sticker('b@example.com')],
    });
    await openAndSign(s.baseUrl, signed.stickers[0].signer_url);
    const pending = await s.client.createDocument({
      b64_doc: (await makePdf([{ width: 400, height: 400 }])).toString('base64'),
      name: 'pending',
      stickers: [sticker('c@example.com')],
    });
    const docs = [signed, pending];
    const before = await snapshot(s.client, docs);
    expect(before[0].report.firmas).toHaveLength(1);
    expect(before[0].report.documentIntegrity).toBe('intact');
    const caPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();

    const backup = await tempDir('backup');
    expect(await runBackup({ ...s.deps.config, masterKey }, { dir: backup, blobs: 'copy', json: true }, s.deps.blobs)).toBe(0);
    expect((await readdir(backup)).sort()).toEqual(['blobs', 'db', 'manifest.json']);
    // A backup is written into a new or empty directory only.
    await expect(runBackup({ ...s.deps.config, masterKey }, { dir: backup, blobs: 'copy', json: true }, s.deps.blobs)).rejects.toThrow(
      /not empty/,
    );

    // Without the master key, or with another one, nothing happens: no database is even created.
    const keyless = await tempDir('keyless');
    await expect(runRestore(loadConfig({ NODE_ENV: 'test', SELLO_DATA_DIR: keyless }), { dir: backup, json: true })).rejects.toThrow(
      /needs the master key/,
    );
    const wrong = loadConfig({ NODE_ENV: 'test', SELLO_DATA_DIR: keyless, SELLO_MASTER_KEY: randomBytes(32).toString('base64') });
    await expect(runRestore(wrong, { dir: backup, json: true })).rejects.toThrow(/not the one this backup was taken with/);
    expect(existsSync(join(keyless, 'pg'))).toBe(false);

    // A fresh machine: an empty data directory, the master key given apart.
    const fresh = await tempDir('restored');
    const config = loadConfig({ NODE_ENV: 'test', SELLO_DATA_DIR: fresh, SELLO_MASTER_KEY: masterKey.toString('base64') });
    expect(await runRestore(config, { dir: backup, json: true })).toBe(0);
    // Only into an empty database.
    await expect(runRestore(config, { dir: backup, json: true })).rejects.toThrow(/not empty/);

    const pg = await startEmbeddedPostgres(fresh);
    let r: TestServer | undefined;
    try {
      r = await startTestServerOn({ databaseUrl: pg.connectionString, dataDir: fresh, masterKey, creds: s.creds });
      const after = await snapshot(r.client, docs);
      expect(after).toEqual(before);
      for (const a of after) {
        expect(a.history.chain).toMatchObject({ valid: true, first_broken_seq: null });
      }
      expect(await (await fetch(`${r.baseUrl}/pki/ca.pem`)).text()).toBe(caPem);

      // Signing goes on, under the restored PKI: the second signer of the first document, and the pending one.
      await openAndSign(r.baseUrl, signed.stickers[1].signer_url);
      await openAndSign(r.baseUrl, pending.stickers[0].signer_url);
      const [two, one] = await Promise.all(docs.map((d) => r!.client.signatureReport(d.document_ticket)));
      expect(two.firmas).toHaveLength(2);
      expect(one.firmas).toHaveLength(1);
      expect([two.documentIntegrity, one.documentIntegrity]).toEqual(['intact', 'intact']);
      const histories = await Promise.all(docs.map((d) => r!.client.documentHistory(d.document_ticket)));
      expect(histories.map((h) => h.chain.valid)).toEqual([true, true]);
      expect(histories[0].entries.slice(0, before[0].history.entries.length)).toEqual(before[0].history.entries);
      // Checked by pdfsig too, trusting only the root the original service published.
      const checked = await pdfsig((await r.client.downloadDocument('original', signed.document_ticket)).bytes, caPem, { noOcsp: true });
      expect(checked.signatures.map((x) => [x.valid, x.trusted])).toEqual([
        [true, true],
        [true, true],
      ]);
    } finally {
      await r?.close();
      await pg.stop();
    }

    // An external PostgreSQL (DATABASE_URL): an empty database made by its administrator.
    const name = `restored_${randomBytes(4).toString('hex')}`;
    const admin = new Client({ connectionString: inject('pgAdminUrl') });
    await admin.connect();
    try {
      await admin.query(`create database ${name}`);
      const url = databaseUrl(inject('pgAdminUrl'), name);
      const external = loadConfig({
        NODE_ENV: 'test',
        SELLO_DATA_DIR: await tempDir('external'),
        DATABASE_URL: url,
        SELLO_MASTER_KEY: masterKey.toString('base64'),
      });
      expect(await runRestore(external, { dir: backup, json: true })).toBe(0);
      const db = new Client({ connectionString: url });
      await db.connect();
      try {
        const { rows } = await db.query<{ ticket: string; history_head: string }>(
          'select ticket, history_head from documents order by ticket',
        );
        expect(rows).toEqual(
          docs
            .map((d, i) => ({ ticket: d.document_ticket, history_head: before[i].history.entries.at(-1)!.hash }))
            .sort((x, y) => (x.ticket < y.ticket ? -1 : 1)),
        );
      } finally {
        await db.end();
      }
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});
