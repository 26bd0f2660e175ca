// A signature waits for its one-time key before it locks the document: with the pool empty, an
// RSA-2048 key takes 150 ms or more to make, and the lock (and a database connection) must not be
// held all that time. Checked by holding the key back and taking the document's lock meanwhile.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignerKeySource } from '../../src/pki/key-pool.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

describe('the signer key of a signature', () => {
  it('is taken before the document is locked, and the signature completes once it comes', async () => {
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: 'Contrato',
      stickers: [
        { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
      ],
    });
    const deps = s.deps as { signerKeys: SignerKeySource };
    const pools = deps.signerKeys;
    let asked!: () => void;
    let release!: () => void;
    const keyAsked = new Promise<void>((r) => {
      asked = r;
    });
    const keyReleased = new Promise<void>((r) => {
      release = r;
    });
    deps.signerKeys = {
      take: async (algorithm) => {
        asked();
        await keyReleased;
        return pools.take(algorithm);
      },
    };
    try {
      const token = doc.stickers[0].signer_url.split('/').pop()!;
      const signing = fetch(`${s.baseUrl}/sign/api/${token}/sign`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ signature: { type: 'typed', text: 'Ana García' }, consent: true }),
      });
      await keyAsked;
      // While the signature waits for its key, the document's row can be locked at once (NOWAIT
      // fails with 55P03 if another transaction holds it).
      const lockedElsewhere = await s.deps.db
        .transaction()
        .execute((trx) => sql`select id from documents where ticket = ${doc.document_ticket} for update nowait`.execute(trx))
        .then(
          () => false,
          (err: { code?: string }) => err.code === '55P03',
        );
      expect(lockedElsewhere).toBe(false);
      release();
      const res = await signing;
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'signed', document_status: 'completed' });
    } finally {
      release();
      deps.signerKeys = pools;
    }
  });
});
