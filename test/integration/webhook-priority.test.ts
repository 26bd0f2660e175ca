// A signature that completes a document queues, in one transaction, the document's universal
// rendition and then its webhooks. Job runners take due jobs by priority, then by run_at: the
// webhooks must come first, or under sustained signing every delivery waits behind renditions.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAccountWebhook } from '../../src/domain/accounts/set-webhook.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { postDrawnSignature, signerToken } from '../helpers/signer-page.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  // Never called: no runner runs in this test; the jobs stay queued to be read.
  await setAccountWebhook(s.deps, { webId: s.creds.webId, url: 'http://127.0.0.1:9/hook' });
});
afterAll(async () => {
  await s?.close();
});

describe('the order in which runners take the jobs of a signature', () => {
  it('takes the webhook deliveries before the universal rendition queued ahead of them', async () => {
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: 'Contrato',
      stickers: [
        { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
      ],
    });
    const res = await postDrawnSignature(s.baseUrl, signerToken(doc.stickers[0].signer_url));
    expect(res.status, await res.clone().text()).toBe(200);

    // The order of graphile-worker's get_job: priority, then run_at (and id for equal times).
    const queued = await sql<{ task_identifier: string }>`
      select task_identifier from graphile_worker.jobs
      where task_identifier in ('deliver_webhook', 'universal_build')
      order by priority asc, run_at asc, id asc`.execute(s.deps.db);
    expect(queued.rows.map((r) => r.task_identifier)).toEqual(['deliver_webhook', 'deliver_webhook', 'universal_build']);
  });
});
