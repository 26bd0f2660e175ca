// Identity verification in a document set when requests cross: the person's verification spans
// their documents of the set, so whatever changes it (a submission, a decision) takes those
// documents' locks, in document order, before their signer rows. Two tabs submitting at once (one
// through the set link, one through a document's own link) make one review and one clear refusal;
// a decision crossing a view of another of the person's documents (document row, then signer row,
// as viewing and signing take them) waits for it instead of deadlocking.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockHistoryHead } from '../../src/store/history-repo.js';
import { markViewed } from '../../src/store/signing-repo.js';
import { testPng } from '../helpers/images.js';
import { createVerifyingSet } from '../helpers/identity-sets.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { publicCall } from '../helpers/public-call.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

const FRONT = testPng(1200, 760, [210, 190, 160]);
const BACK = testPng(1200, 760, [160, 190, 210]);
const SELFIE = testPng(720, 960, [230, 200, 180]);

let s: TestServer;
let pdf: string;

beforeAll(async () => {
  s = await startTestServer();
  pdf = (await makePdf([A4])).toString('base64');
});
afterAll(async () => {
  await s?.close();
});

const call = (path: string, body?: unknown) => publicCall(s.baseUrl, body === undefined ? 'GET' : 'POST', path, body);

/** A closed set of two documents where the first asks Ana to verify her identity; her images sent. */
async function capturedSet() {
  const set = await createVerifyingSet(s.client, pdf, { label: 'Carrera', anaName: 'Ana García' });
  const token = set.ana;
  for (const [kind, image] of [
    ['front', FRONT],
    ['back', BACK],
    ['selfie', SELFIE],
  ] as const) {
    expect((await call(`/sign/api/set/${token}/identity/${kind}`, { image: image.toString('base64') })).status).toBe(200);
  }
  return { uuid: set.uuid, token, anaOnSecond: set.anaOnSecond, tickets: set.tickets };
}

const reviewsOf = async (uuid: string) => (await s.client.listIdentityReviews()).reviews.filter((r) => r.document_set?.uuid === uuid);

describe('identity verification in a document set, requests crossing', () => {
  it('two submissions at once through the set link and a document link: one review, one piece, the other refused', async () => {
    for (let round = 0; round < 4; round++) {
      const set = await capturedSet();
      const answers = await Promise.all([
        call(`/sign/api/set/${set.token}/identity/submit`, {}),
        call(`/sign/api/${set.anaOnSecond}/identity/submit`, {}),
      ]);
      const outcome = answers.map((a) => `${a.status} ${a.json.error?.code ?? a.json.status}`).sort();
      expect(outcome, JSON.stringify(answers.map((a) => a.json))).toEqual(['200 verification_pending', '409 INVALID_STATE']);
      expect(await reviewsOf(set.uuid)).toHaveLength(1);
      const pieces = await sql<{ n: number }>`select count(*)::int as n from consumption c join documents d on d.id = c.document_id
        where c.kind = 'verifications' and d.ticket = any(${set.tickets}::text[])`.execute(s.deps.db);
      expect(pieces.rows[0].n).toBe(1);
    }
  });

  it('a decision crossing a first view of the second document waits for it: both succeed', async () => {
    const set = await capturedSet();
    expect((await call(`/sign/api/set/${set.token}/identity/submit`, {})).status).toBe(200);
    const [review] = await reviewsOf(set.uuid);
    const row = await sql<{ id: string; document_id: string }>`select s.id::text as id, s.document_id::text as document_id
      from signers s join documents d on d.id = s.document_id where d.ticket = ${set.tickets[1]} and s.name = 'Ana García'`.execute(
      s.deps.db,
    );
    const second = row.rows[0];
    let decision: Promise<unknown> | undefined;
    let viewed = false;
    await s.deps.db.transaction().execute(async (trx) => {
      // What recordView does for Ana's first view of the second document: its row, then hers.
      await lockHistoryHead(trx, second.document_id);
      decision = s.client.decideIdentityReview(review.id, { decision: 'approve' }).then(
        (r) => r,
        (e: unknown) => e,
      );
      // The decision is under way and waiting on a lock held here.
      for (let i = 0; i < 200; i++) {
        const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`.execute(s.deps.db);
        if (waiting.rows[0].n > 0) {
          break;
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      await markViewed(trx, second.id, new Date());
      viewed = true;
    });
    expect(viewed).toBe(true);
    const decided = await decision;
    expect(decided).toMatchObject({ status: 'approved' });
    const statuses = await sql<{ identity_status: string }>`select s.identity_status from signers s join documents d on d.id = s.document_id
      where d.ticket = any(${set.tickets}::text[]) and s.name = 'Ana García' order by d.id`.execute(s.deps.db);
    expect(statuses.rows.map((r) => r.identity_status)).toEqual(['verified', 'verified']);
  });
});
