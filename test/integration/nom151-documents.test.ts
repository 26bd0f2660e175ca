// NOM-151 stamps of documents: a document created with nom151 (or under an account that stamps by
// default) is stamped by a job queued when it completes; a provider that is down fails the job,
// which is retried until the stamp is made, once. Its stamps are listed and the bytes each covers
// downloaded (and checked by `openssl ts -verify -data`).
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/domain/accounts/update-account.js';
import { stampDocumentRendition } from '../../src/domain/nom151/stamp-document.js';
import { derToPem, pemCertificates } from '../../src/pki/index.js';
import { apiError } from '../helpers/api-error.js';
import { jobRunner, type JobRunner } from '../helpers/jobs.js';
import { opensslTsVerify } from '../helpers/openssl-ts.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestPsc, type TestPsc } from '../helpers/psc-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let psc: TestPsc;
let jobs: JobRunner;
let pdf: string;

beforeAll(async () => {
  [s, psc] = await Promise.all([startTestServer(), startTestPsc()]);
  jobs = jobRunner(s.connectionString, s.deps);
  pdf = (await makePdf([A4])).toString('base64');
}, 60_000);
afterAll(async () => {
  await jobs?.close();
  await s?.close();
  await psc?.close();
});

/** A one-signer document, signed: completed in that signature's transaction. */
async function completedDocument(extra: Record<string, unknown> = {}): Promise<string> {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Contrato',
    stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
    ...extra,
  });
  const token = doc.stickers[0].signer_url.split('/').pop()!;
  const res = await fetch(`${s.baseUrl}/sign/api/${token}/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ signature: { type: 'typed', text: 'Ana' }, consent: true }),
  });
  expect(res.status).toBe(200);
  expect((await res.json()).document_status).toBe('completed');
  return doc.document_ticket;
}

async function stampJobs(ticket: string) {
  const r = await sql<{ attempts: number; last_error: string | null; payload: { documentId: string; rendition: string } }>`
    select j.attempts, j.last_error, j.payload from graphile_worker._private_jobs j
    join graphile_worker._private_tasks t on t.id = j.task_id
    where t.identifier = 'nom151_stamp'
      and j.payload->>'documentId' = (select id::text from documents where ticket = ${ticket})`.execute(s.deps.db);
  return r.rows;
}

async function eventsOf(ticket: string) {
  const r = await sql<{ kind: string; meta: { stamp: { token: string; tsa: string; time: string; hash: string } } }>`
    select n.kind, n.meta from notifications n join documents d on d.id = n.document_id
    where d.ticket = ${ticket} and n.kind like '%nom151%' order by n.id`.execute(s.deps.db);
  return r.rows;
}

/** The document's long-term state as the listing (GET /api/document) shows it. */
async function archivalOf(ticket: string) {
  const { documents } = await s.client.listDocuments({ limit: 500 });
  const d = documents.find((x) => x.document_ticket === ticket)!;
  return { universal_rendition: d.universal_rendition, nom151_stamps: d.nom151_stamps };
}

async function failuresOf(ticket: string) {
  const r = await sql<{ details: { rendition: string; attempt: number; max_attempts: number; reason: string; final?: boolean } }>`
    select h.details from document_history h join documents d on d.id = h.document_id
    where d.ticket = ${ticket} and h.action = 'nom151_stamp_failed' order by h.details->>'rendition', h.seq`.execute(s.deps.db);
  return r.rows.map((x) => x.details);
}

describe('stamping completed documents', () => {
  it('nom151: true queues the stamp with the completion; the job stamps the original once, announces it and lists it', async () => {
    s.deps.nom151Psc = undefined;
    const ticket = await completedDocument({ nom151: true });
    expect(await stampJobs(ticket)).toHaveLength(1);
    await jobs.runDue();
    expect(await stampJobs(ticket)).toHaveLength(0);

    // The same run built the universal rendition, whose first rendition is stamped too.
    const listed = (await s.client.listStamps(ticket)).stamps;
    expect(listed.map((x) => x.rendition).sort()).toEqual(['original', 'universal']);
    const stamps = listed.filter((x) => x.rendition === 'original');
    const original = await s.client.downloadDocument('original', ticket);
    expect(stamps[0]).toMatchObject({ rendition: 'original', provider: 'built_in', hash: original.hash });
    const universal = await s.client.downloadDocument('universal', ticket);
    expect(listed.find((x) => x.rendition === 'universal')).toMatchObject({ provider: 'built_in', hash: universal.hash });

    const events = await eventsOf(ticket);
    expect(events.map((e) => e.kind).sort()).toEqual(['original_nom151_stamped', 'universal_nom151_stamped']);
    events.sort((a, b) => a.kind.localeCompare(b.kind));
    expect(events[0].meta.stamp).toMatchObject({
      token: stamps[0].stamp,
      tsa: stamps[0].tsa,
      time: stamps[0].gen_time,
      hash: original.hash,
    });

    const revision = await s.client.stampedRevision(ticket, stamps[0].hash);
    const bytes = Buffer.from(revision.pdf, 'base64');
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(stamps[0].hash);
    expect(bytes.equals(original.bytes)).toBe(true);
    const rootPem = derToPem(s.deps.pki.pki.root.certificateDer, 'CERTIFICATE');
    const v = await opensslTsVerify(Buffer.from(revision.stamp, 'base64'), { data: bytes }, rootPem);
    expect(v.output).toContain('Verification: OK');

    // The universal rendition's stamp: openssl verifies its token over the exact bytes served for it
    // (the universal rendition as stamped), and not over the original's.
    const stampedUniversal = await s.client.stampedRevision(ticket, universal.hash);
    const universalBytes = Buffer.from(stampedUniversal.pdf, 'base64');
    expect(universalBytes.equals(universal.bytes)).toBe(true);
    const universalToken = Buffer.from(listed.find((x) => x.rendition === 'universal')!.stamp, 'base64');
    const vu = await opensslTsVerify(universalToken, { data: universalBytes }, rootPem);
    expect(vu.output).toMatch(/^Verification: OK$/m);
    expect((await opensslTsVerify(universalToken, { data: original.bytes }, rootPem)).ok).toBe(false);

    const history = await s.client.documentHistory(ticket);
    expect(JSON.stringify(history)).toContain('nom151_stamped');

    // A second run of the same job (a retry after a crash) changes nothing.
    expect(await stampDocumentRendition(s.deps, { documentId: await idOf(ticket), rendition: 'original' })).toBe('already_stamped');
    expect(await eventsOf(ticket)).toHaveLength(2);
  });

  it('a document without nom151 is not stamped; the account default turns it on, nom151: false off', async () => {
    const plain = await completedDocument();
    expect(await stampJobs(plain)).toHaveLength(0);

    await updateAccount(s.deps, { webId: s.creds.webId, nom151Default: true });
    try {
      const byDefault = await completedDocument();
      const optedOut = await completedDocument({ nom151: false });
      expect(await stampJobs(byDefault)).toHaveLength(1);
      expect(await stampJobs(optedOut)).toHaveLength(0);
      await jobs.runDue();
      expect((await s.client.listStamps(byDefault)).stamps.map((x) => x.rendition).sort()).toEqual(['original', 'universal']);
      expect((await s.client.listStamps(optedOut)).stamps).toHaveLength(0);
    } finally {
      await updateAccount(s.deps, { webId: s.creds.webId, nom151Default: false });
    }
    const e = await apiError(s.client.createDocument({ b64_doc: pdf, nom151: 'yes' as unknown as boolean }));
    expect([e.status, e.message]).toEqual([400, expect.stringMatching(/^nom151: /)]);
  });

  it('provider down: the job fails and is retried; provider back: stamped once', async () => {
    s.deps.nom151Psc = { url: psc.url, trustedRootsDer: pemCertificates(psc.rootPem) };
    psc.mode = 'down';
    try {
      const ticket = await completedDocument({ nom151: true });
      await jobs.runDue();
      // The original's stamp, and the universal rendition's (built meanwhile with the service's TSA).
      let pending = await stampJobs(ticket);
      expect(pending.map((j) => j.payload.rendition).sort()).toEqual(['original', 'universal']);
      expect(pending.map((j) => j.attempts)).toEqual([1, 1]);
      expect(pending[0].last_error).toContain('NOM-151 provider did not answer');
      expect((await s.client.listStamps(ticket)).stamps).toHaveLength(0);

      // Still down at the retry.
      await makeDue();
      await jobs.runDue();
      pending = await stampJobs(ticket);
      expect(pending.map((j) => j.attempts)).toEqual([2, 2]);

      psc.mode = 'up';
      await makeDue();
      await jobs.runDue();
      expect(await stampJobs(ticket)).toHaveLength(0);
      const stamps = (await s.client.listStamps(ticket)).stamps.filter((x) => x.rendition === 'original');
      expect((await s.client.listStamps(ticket)).stamps).toHaveLength(2);
      expect(stamps[0]).toMatchObject({ provider: 'psc', tsa: expect.stringContaining('Sello Test TSA') });
      expect(await eventsOf(ticket)).toHaveLength(2);
      const v = await opensslTsVerify(Buffer.from(stamps[0].stamp, 'base64'), { digestHex: stamps[0].hash }, psc.rootPem);
      expect(v.ok).toBe(true);
      // The PSC's stamp of the universal rendition, over the bytes served as that rendition.
      const universalStamp = (await s.client.listStamps(ticket)).stamps.find((x) => x.rendition === 'universal')!;
      const universal = await s.client.downloadDocument('universal', ticket);
      expect(universalStamp.hash).toBe(universal.hash);
      const vu = await opensslTsVerify(Buffer.from(universalStamp.stamp, 'base64'), { data: universal.bytes }, psc.rootPem);
      expect(vu.output).toMatch(/^Verification: OK$/m);
    } finally {
      psc.mode = 'up';
      s.deps.nom151Psc = undefined;
    }
  });

  it('a stamp that fails for good: failed with the reason in the listing, nom151_stamp_failed in the history; done once the operator retries', async () => {
    s.deps.nom151Psc = { url: psc.url, trustedRootsDer: pemCertificates(psc.rootPem) };
    psc.mode = 'http-500';
    try {
      const ticket = await completedDocument({ nom151: true });
      // Completed, nothing run yet: both owed, the universal stamp once its rendition exists.
      expect(await archivalOf(ticket)).toEqual({
        universal_rendition: { status: 'pending' },
        nom151_stamps: { original: { status: 'pending' }, universal: null },
      });
      await jobs.runDue();
      // Failed once, retried: still pending, with the reason; the rendition itself is built.
      const first = await archivalOf(ticket);
      expect(first.universal_rendition).toEqual({ status: 'ready' });
      expect(first.nom151_stamps).toEqual({
        original: { status: 'pending', reason: expect.stringMatching(/NOM-151 provider answered HTTP 500/) },
        universal: { status: 'pending', reason: expect.stringMatching(/NOM-151 provider answered HTTP 500/) },
      });
      expect((await failuresOf(ticket)).map((d) => [d.rendition, d.attempt, d.final])).toEqual([
        ['original', 1, undefined],
        ['universal', 1, undefined],
      ]);

      // A retry with the same reason adds nothing to the history.
      await makeDue();
      await jobs.runDue();
      expect(await failuresOf(ticket)).toHaveLength(2);

      // The last attempt fails: failed, in the listing and in the notification exchange, and a final entry.
      await sql`update graphile_worker._private_jobs j set attempts = j.max_attempts - 1, run_at = now()
        from graphile_worker._private_tasks t where t.id = j.task_id and t.identifier = 'nom151_stamp'
        and j.payload->>'documentId' = ${await idOf(ticket)}`.execute(s.deps.db);
      await jobs.runDue();
      const failed = await archivalOf(ticket);
      expect(failed.nom151_stamps?.original).toEqual({ status: 'failed', reason: expect.stringMatching(/HTTP 500/) });
      expect(failed.nom151_stamps?.universal).toEqual({ status: 'failed', reason: expect.stringMatching(/HTTP 500/) });
      const finals = (await failuresOf(ticket)).filter((d) => d.final);
      expect(finals.map((d) => [d.rendition, d.attempt, d.max_attempts])).toEqual([
        ['original', 50, 50],
        ['universal', 50, 50],
      ]);
      const notificationId = (
        await sql<{ notification_id: string }>`select n.notification_id from notifications n join documents d on d.id = n.document_id
          where d.ticket = ${ticket} and n.kind = 'document_completed'`.execute(s.deps.db)
      ).rows[0].notification_id;
      const exchanged = await s.client.notificationDocument(notificationId);
      expect(exchanged.document?.nom151_stamps).toEqual(failed.nom151_stamps);
      expect(exchanged.document?.universal_rendition).toEqual({ status: 'ready' });

      // Nothing retries it any more; the operator's reschedule (docs/operations.md) stamps it.
      await makeDue();
      await jobs.runDue();
      expect((await stampJobs(ticket)).map((j) => j.attempts)).toEqual([50, 50]);
      psc.mode = 'up';
      await sql`select graphile_worker.reschedule_jobs(array_agg(j.id), run_at := now(), attempts := 0)
        from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
        where t.identifier = 'nom151_stamp' and j.payload->>'documentId' = ${await idOf(ticket)}`.execute(s.deps.db);
      await jobs.runDue();
      expect(await archivalOf(ticket)).toEqual({
        universal_rendition: { status: 'ready' },
        nom151_stamps: { original: { status: 'ready' }, universal: { status: 'ready' } },
      });
    } finally {
      psc.mode = 'up';
      s.deps.nom151Psc = undefined;
    }
  });

  it("the universal rendition's branch stamps the bytes named by documents.universal_sha256", async () => {
    // The column arrives with the universal rendition; added here to exercise this branch alone.
    await sql`alter table documents add column if not exists universal_sha256 text`.execute(s.deps.db);
    const ticket = await completedDocument();
    const id = await idOf(ticket);
    expect(await stampDocumentRendition(s.deps, { documentId: id, rendition: 'universal' })).toBe('no_rendition');
    const universal = Buffer.concat([
      Buffer.from((await s.client.downloadDocument('original', ticket)).bytes),
      Buffer.from('\n% universal\n'),
    ]);
    const key = await s.deps.blobs.put(universal);
    await sql`update documents set universal_sha256 = ${key} where id = ${id}`.execute(s.deps.db);
    expect(await stampDocumentRendition(s.deps, { documentId: id, rendition: 'universal' })).toBe('stamped');
    const { stamps } = await s.client.listStamps(ticket);
    expect(stamps).toMatchObject([{ rendition: 'universal', hash: key }]);
    expect((await eventsOf(ticket)).map((e) => e.kind)).toEqual(['universal_nom151_stamped']);
    const bytes = Buffer.from((await s.client.stampedRevision(ticket, key)).pdf, 'base64');
    expect(bytes.equals(universal)).toBe(true);
  });
});

describe('routes under /api/document/{ticket}', () => {
  it('the stamp paths are not taken by the download route, which still answers', async () => {
    const doc = await s.client.createDocument({ b64_doc: pdf });
    const list = await s.client.raw('GET', `/api/document/${doc.document_ticket}/stamps`);
    expect([list.status, JSON.parse(list.text)]).toEqual([200, { stamps: [] }]);
    const missing = await apiError(s.client.stampedRevision(doc.document_ticket, 'a'.repeat(64)));
    expect([missing.status, missing.code]).toEqual([404, 'DOCUMENT_NOT_FOUND']);
    const badHash = await apiError(s.client.stampedRevision(doc.document_ticket, 'xyz'));
    expect(badHash.status).toBe(400);
    expect((await s.client.downloadDocument('original', doc.document_ticket)).hash).toMatch(/^[0-9a-f]{64}$/);
    const other = await s.newAccount('Other');
    expect((await apiError(other.client.listStamps(doc.document_ticket))).status).toBe(404);
  });
});

async function idOf(ticket: string): Promise<string> {
  const r = await sql<{ id: string }>`select id::text as id from documents where ticket = ${ticket}`.execute(s.deps.db);
  return r.rows[0].id;
}

/** graphile-worker waits exp(attempts) seconds before a retry: make the waiting stamp job due now. */
async function makeDue(): Promise<void> {
  await sql`update graphile_worker._private_jobs set run_at = now()
            where task_id = (select id from graphile_worker._private_tasks where identifier = 'nom151_stamp')`.execute(s.deps.db);
}
