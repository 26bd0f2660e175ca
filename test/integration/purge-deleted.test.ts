// SELLO_DELETED_RETENTION_DAYS (decisions.md "States"): documents deleted longer ago than the
// retention are purged, rows and blobs, with a tombstone that closes their history chain; their
// ticket then answers 404. Unset, deleted documents stay restorable for good.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeDeletedDocuments } from '../../src/domain/lifecycle/purge-deleted-documents.js';
import { entryHash } from '../../src/domain/history/history-hash.js';
import { loadConfig } from '../../src/config.js';
import { apiError } from '../helpers/api-error.js';
import { makePdf } from '../helpers/pdfs.js';
import { openAndSign } from '../helpers/signer-page.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

const DAY = 86_400_000;
let s: TestServer;
let offset = 0;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const sticker = (email: string) => ({ authority: 'EMAIL_LINK' as const, data: email, page: 0, rect: { lx: 10, ly: 10, tx: 100, ty: 60 } });

beforeAll(async () => {
  s = await startTestServer({ env: { SELLO_DELETED_RETENTION_DAYS: '30' }, clock: { now: () => new Date(Date.now() + offset) } });
});
afterAll(() => s?.close());

describe('purgeDeletedDocuments', () => {
  it('does nothing when no retention is set', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).lifecycle.deletedRetentionDays).toBeUndefined();
    expect(() => loadConfig({ NODE_ENV: 'test', SELLO_DELETED_RETENTION_DAYS: '0' })).toThrow(/SELLO_DELETED_RETENTION_DAYS/);
  });

  it('purges documents deleted longer ago than the retention, keeps bytes another document names, leaves a tombstone', async () => {
    const shared = await makePdf([{ width: 500, height: 500 }]);
    const own = await makePdf([{ width: 300, height: 500 }]);
    const gone = await s.client.createDocument({ b64_doc: own.toString('base64'), name: 'gone', stickers: [sticker('a@example.com')] });
    await openAndSign(s.baseUrl, gone.stickers[0].signer_url);
    const signed = (await s.client.downloadDocument('original', gone.document_ticket)).bytes;
    const twin = await s.client.createDocument({ b64_doc: shared.toString('base64'), name: 'twin', stickers: [sticker('b@example.com')] });
    const live = await s.client.createDocument({ b64_doc: shared.toString('base64'), name: 'live', stickers: [sticker('c@example.com')] });
    const restored = await s.client.createDocument({
      b64_doc: shared.toString('base64'),
      name: 'back',
      stickers: [sticker('d@example.com')],
    });
    for (const t of [gone, twin, restored]) {
      await s.client.deleteDocument(t.document_ticket);
    }
    const history = await s.client.documentHistory(gone.document_ticket);
    const head = history.entries.at(-1)!.hash;
    expect(await s.deps.blobs.has(sha256(signed))).toBe(true);

    offset = 29 * DAY; // within the retention: nothing goes
    expect(await purgeDeletedDocuments(s.deps)).toEqual({ documents: 0, blobs: 0 });
    await s.client.restoreDocument(restored.document_ticket);

    offset = 31 * DAY;
    const purged = await purgeDeletedDocuments(s.deps);
    // gone: its source and its signed revision; twin: nothing (live and the restored one name its bytes).
    expect(purged).toEqual({ documents: 2, blobs: 2 });
    expect(await s.deps.blobs.has(sha256(own))).toBe(false);
    expect(await s.deps.blobs.has(sha256(signed))).toBe(false);
    expect(await s.deps.blobs.has(sha256(shared))).toBe(true);

    for (const t of [gone.document_ticket, twin.document_ticket]) {
      expect((await apiError(s.client.documentHistory(t))).status).toBe(404);
      expect((await apiError(s.client.downloadDocument('original', t))).status).toBe(404);
      expect((await apiError(s.client.restoreDocument(t))).status).toBe(404);
      expect((await apiError(s.client.signatureReport(t))).status).toBe(404);
    }
    expect((await fetch(`${s.baseUrl}/sign/api/${twin.stickers[0].signer_url.split('/').pop()}`)).status).toBe(404);
    expect((await s.client.downloadDocument('original', live.document_ticket)).bytes.equals(shared)).toBe(true);
    expect((await s.client.documentHistory(restored.document_ticket)).chain.valid).toBe(true);

    // The tombstone is the purged entry of the chain, on top of the head the history showed.
    const rows = await s.deps.db
      .selectFrom('document_tombstones')
      .selectAll()
      .where('ticket', 'in', [gone.document_ticket, twin.document_ticket])
      .execute();
    expect(rows).toHaveLength(2);
    const t = rows.find((r) => r.ticket === gone.document_ticket)!;
    expect(t).toMatchObject({ action: 'purged', actor: 'system', seq: history.entries.length + 1, prev_hash: head });
    expect(
      entryHash({
        document: t.ticket,
        seq: t.seq,
        at: t.at,
        action: t.action,
        actor: t.actor,
        ip: null,
        details: t.details,
        prev_hash: t.prev_hash,
      }),
    ).toBe(t.hash);
    // Nothing else of them remains: no document row, so no signer, history entry or revision either (cascade).
    expect(
      await s.deps.db.selectFrom('documents').select('id').where('ticket', 'in', [gone.document_ticket, twin.document_ticket]).execute(),
    ).toEqual([]);

    // Again: nothing left to purge.
    expect(await purgeDeletedDocuments(s.deps)).toEqual({ documents: 0, blobs: 0 });
    offset = 0;
  });
});
