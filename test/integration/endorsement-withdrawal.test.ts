// Withdrawing a pending endorsement (docs/api.md "Withdrawing an endorsement"): the endorser's link
// stops working on every route, the chain is as it was, a new endorsement can be made and signed,
// what is not pending or not there is refused, and a withdrawal that meets the endorser's signature
// at the same moment ends in exactly one of them, whichever takes the document first.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndorsementInput } from '../../src/client/index.js';
import { listMessages } from '../../src/store/mail-repo.js';
import { apiError } from '../helpers/api-error.js';
import { eventKinds } from '../helpers/events.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { publicCall } from '../helpers/public-call.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pdfsig } from '../helpers/validators.js';

let s: TestServer;
let rootPem: string;
let pdf: string;

beforeAll(async () => {
  s = await startTestServer();
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  pdf = (await makePdf([A4, A4])).toString('base64');
});
afterAll(async () => {
  await s?.close();
});

const call = (method: string, path: string, body?: unknown) => publicCall(s.baseUrl, method, path, body);
const typed = (text: string) => ({ signature: { type: 'typed', text }, consent: true });
const tokenOf = (url: string) => url.split('/').pop()!;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A document Ana has signed (completed), with its ticket. */
async function completedDocument(client = s.client): Promise<string> {
  const doc = await client.createDocument({
    b64_doc: pdf,
    name: 'Pagaré',
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana Pérez', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
    ],
  });
  const signed = await call('POST', `/sign/api/${tokenOf(doc.stickers[0].signer_url)}/sign`, typed('Ana Pérez'));
  expect(signed.json).toMatchObject({ status: 'signed', document_status: 'completed' });
  return doc.document_ticket;
}

const endorsement = (endorser: { name: string; authority: string; data: string }, endorsee: { name: string; email: string }) =>
  ({ endorsement: { type: 'propiedad', text: `Páguese a la orden de ${endorsee.name}` }, endorser, endorsee }) as EndorsementInput;

const ANA_LINK = { name: 'Ana Pérez', authority: 'EMAIL_LINK', data: 'ana@example.com' };
const ANA_CODE = { name: 'Ana Pérez', authority: 'EMAIL', data: 'ana@example.com' };
const BEATRIZ = { name: 'Beatriz Gómez', email: 'beatriz@example.com' };
const CARLA = { name: 'Carla Ruiz', email: 'carla@example.com' };

/** Sends the code to an EMAIL endorser and proves it. */
async function proveByCode(token: string, email: string) {
  expect((await call('POST', `/sign/api/${token}/otp`)).status).toBe(200);
  const mail = (await listMessages(s.deps, 200)).find((m) => m.recipient === email && m.kind === 'otp')!;
  const code = /\b(\d{6})\b/.exec(mail.body_text)![1];
  expect((await call('POST', `/sign/api/${token}/otp/verify`, { code })).status).toBe(200);
}

const withdrawPath = (ticket: string, id: string) => `/api/document/${ticket}/endorsements/${id}`;

describe('withdrawing an endorsement', () => {
  it("stops the endorser's link on every route; the chain is as it was, and a new endorsement is made and signed", async () => {
    const ticket = await completedDocument();
    const original = (await s.client.downloadDocument('original', ticket)).bytes;
    const first = await s.client.endorseDocument(ticket, endorsement(ANA_CODE, BEATRIZ));
    const token = tokenOf(first.signer_url);
    const box = (await call('GET', `/sign/api/${token}`)).json.boxes[0];
    // Proven already: what refuses the signature below is the withdrawal, not a missing code.
    await proveByCode(token, 'ana@example.com');

    const withdrawn = await s.client.withdrawEndorsement(ticket, first.endorsement_id, '  Sent to the wrong endorsee ');
    expect(withdrawn).toMatchObject({
      endorsement_id: first.endorsement_id,
      sequence: 1,
      status: 'withdrawn',
      signed_at: null,
      declined_at: null,
      withdrawal_reason: 'Sent to the wrong endorsee',
      endorsee: { name: 'Beatriz Gómez', email: 'beatriz@example.com', rfc: null },
    });
    expect(Date.parse(withdrawn.withdrawn_at!)).toBeGreaterThanOrEqual(Date.parse(withdrawn.created_at));
    const chain = await s.client.listEndorsements(ticket);
    expect(chain.endorsements).toEqual([withdrawn]);
    expect(chain.holder).toBeNull();

    // Every use of the link is refused, saying why.
    const uses: [string, string, unknown][] = [
      ['GET', '', undefined],
      ['GET', '/pdf', undefined],
      ['POST', '/otp', undefined],
      ['POST', '/otp/verify', { code: '123456' }],
      ['POST', '/sign', typed('Ana Pérez')],
      ['POST', '/reject', { reason: 'No' }],
    ];
    for (const [method, path, body] of uses) {
      const r = await call(method, `/sign/api/${token}${path}`, body);
      expect([r.status, r.json?.error?.code], `${method} ${path}`).toEqual([409, 'ENDORSEMENT_WITHDRAWN']);
      expect(r.json.error.message).toMatch(/withdrew this endorsement/);
      expect(r.json.error.details).toEqual({ withdrawn_at: withdrawn.withdrawn_at });
    }
    // Nothing happened to the document: same bytes, no event, the history says who withdrew what.
    expect(sha256((await s.client.downloadDocument('original', ticket)).bytes)).toBe(sha256(original));
    expect(await eventKinds(s.deps.db, ticket)).toEqual(['original_signed', 'document_completed']);
    const last = (await s.client.documentHistory(ticket)).entries.at(-1)!;
    expect([last.action, last.actor]).toEqual(['endorsement_withdrawn', 'account']);
    expect(last.details).toEqual({
      endorsement_id: first.endorsement_id,
      sequence: 1,
      endorser: 'Ana Pérez',
      reason: 'Sent to the wrong endorsee',
    });
    // The history PDF names the action in the document's language (Spanish by default).
    const dir = mkdtempSync(join(tmpdir(), 'sello-withdrawal-'));
    try {
      writeFileSync(join(dir, 'h.pdf'), await s.client.historyPdf(ticket));
      // The action column is narrow: its words wrap onto several lines.
      const shown = execFileSync('pdftotext', ['-raw', join(dir, 'h.pdf'), '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
      expect(shown).toContain('Endoso retirado por la cuenta');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // A new endorsement: its box takes the place the withdrawn one left, and it is signed.
    const second = await s.client.endorseDocument(ticket, endorsement(ANA_LINK, CARLA));
    expect(second.sequence).toBe(2);
    const info = await call('GET', `/sign/api/${tokenOf(second.signer_url)}`);
    expect(info.json.boxes[0]).toMatchObject({ page: box.page, rect: box.rect });
    expect((await call('POST', `/sign/api/${tokenOf(second.signer_url)}/sign`, typed('Ana Pérez'))).status).toBe(200);
    const final = (await s.client.downloadDocument('original', ticket)).bytes;
    const checked = await pdfsig(final, rootPem);
    expect(checked.signatures.map((x) => [x.commonName, x.valid, x.trusted])).toEqual([
      ['Ana Pérez', true, true],
      ['Ana Pérez', true, true],
    ]);
    expect(checked.signatures[1].totalDocumentSigned).toBe(true);
    const after = await s.client.listEndorsements(ticket);
    expect(after.endorsements.map((e) => [e.sequence, e.status, e.endorsee.name])).toEqual([
      [1, 'withdrawn', 'Beatriz Gómez'],
      [2, 'signed', 'Carla Ruiz'],
    ]);
    expect(after.holder?.name).toBe('Carla Ruiz');
    const report = await s.client.signatureReport(ticket);
    expect(report.endorsements?.map((e) => e.status)).toEqual(['withdrawn', 'signed']);
    // The old link stays refused after the new endorsement is signed.
    expect((await call('GET', `/sign/api/${token}`)).json.error.code).toBe('ENDORSEMENT_WITHDRAWN');
  });

  it('refuses a bad reason, an unknown or foreign endorsement, and one signed, declined or withdrawn already', async () => {
    const ticket = await completedDocument();
    const pending = await s.client.endorseDocument(ticket, endorsement(ANA_LINK, BEATRIZ));
    for (const body of [{ reason: '' }, { reason: '   ' }, { reason: 'x'.repeat(501) }, { reason: 5 }, { reason: ['a'] }]) {
      const r = await s.client.raw('DELETE', withdrawPath(ticket, pending.endorsement_id), body);
      expect([r.status, JSON.parse(r.text).error.details?.field], JSON.stringify(body).slice(0, 80)).toEqual([400, 'reason']);
    }
    const notObject = await s.client.raw('DELETE', withdrawPath(ticket, pending.endorsement_id), ['reason']);
    expect([notObject.status, JSON.parse(notObject.text).error.details?.field]).toEqual([400, 'body']);
    expect((await s.client.listEndorsements(ticket)).endorsements.map((e) => e.status)).toEqual(['pending']);

    const unknown = await apiError(s.client.withdrawEndorsement(ticket, '00000000-0000-4000-8000-000000000000'));
    expect([unknown.status, unknown.code]).toEqual([404, 'ENDORSEMENT_NOT_FOUND']);
    // Another account: neither its ticket nor its endorsement is found from here, nor ours from there.
    const other = await s.newAccount('Otra');
    const foreignTicket = await completedDocument(other.client);
    const foreign = await other.client.endorseDocument(foreignTicket, endorsement(ANA_LINK, BEATRIZ));
    const onOurs = await apiError(s.client.withdrawEndorsement(ticket, foreign.endorsement_id));
    expect([onOurs.status, onOurs.code]).toEqual([404, 'ENDORSEMENT_NOT_FOUND']);
    const onTheirs = await apiError(s.client.withdrawEndorsement(foreignTicket, foreign.endorsement_id));
    expect([onTheirs.status, onTheirs.code]).toEqual([404, 'DOCUMENT_NOT_FOUND']);
    const fromThere = await apiError(other.client.withdrawEndorsement(ticket, pending.endorsement_id));
    expect([fromThere.status, fromThere.code]).toEqual([404, 'DOCUMENT_NOT_FOUND']);
    expect((await other.client.listEndorsements(foreignTicket)).endorsements.map((e) => e.status)).toEqual(['pending']);

    // Signed: no longer withdrawable.
    expect((await call('POST', `/sign/api/${tokenOf(pending.signer_url)}/sign`, typed('Ana'))).status).toBe(200);
    const signed = await apiError(s.client.withdrawEndorsement(ticket, pending.endorsement_id));
    expect([signed.status, signed.code, signed.details]).toEqual([409, 'ENDORSEMENT_NOT_PENDING', { status: 'signed' }]);

    // Declined by the holder's endorser: neither.
    const beatriz = { name: 'Beatriz Gómez', authority: 'EMAIL', data: 'beatriz@example.com' };
    const declinedOne = await s.client.endorseDocument(ticket, endorsement(beatriz, CARLA));
    await proveByCode(tokenOf(declinedOne.signer_url), 'beatriz@example.com');
    expect((await call('POST', `/sign/api/${tokenOf(declinedOne.signer_url)}/reject`, { reason: 'No' })).status).toBe(200);
    const declined = await apiError(s.client.withdrawEndorsement(ticket, declinedOne.endorsement_id));
    expect([declined.status, declined.code, declined.details]).toEqual([409, 'ENDORSEMENT_NOT_PENDING', { status: 'declined' }]);

    // Withdrawn with no body at all (no reason), then a second time: refused.
    const third = await s.client.endorseDocument(ticket, endorsement(beatriz, CARLA));
    const once = await s.client.withdrawEndorsement(ticket, third.endorsement_id);
    expect([once.status, once.withdrawal_reason]).toEqual(['withdrawn', null]);
    const twice = await apiError(s.client.withdrawEndorsement(ticket, third.endorsement_id, 'again'));
    expect([twice.status, twice.code, twice.details]).toEqual([409, 'ENDORSEMENT_NOT_PENDING', { status: 'withdrawn' }]);

    // A reason of exactly 500 characters (two bytes each) is kept whole.
    const fourth = await s.client.endorseDocument(ticket, endorsement(beatriz, CARLA));
    const long = 'é'.repeat(500);
    expect((await s.client.withdrawEndorsement(ticket, fourth.endorsement_id, long)).withdrawal_reason).toBe(long);
    expect((await s.client.listEndorsements(ticket)).endorsements.map((e) => e.status)).toEqual([
      'signed',
      'declined',
      'withdrawn',
      'withdrawn',
    ]);
  });

  describe('at the same moment as the signature', () => {
    /** Sessions of this database waiting for a lock. */
    const lockWaiters = async () =>
      (
        await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(s.deps.db)
      ).rows[0].n;
    async function untilWaiting(n: number) {
      const end = Date.now() + 20_000;
      while ((await lockWaiters()) < n) {
        if (Date.now() > end) {
          throw new Error(`fewer than ${n} requests waiting for the document's lock`);
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    const settle = <T>(p: Promise<T>) =>
      p.then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );

    /**
     * Holds the document row locked while `first` and then `second` start and queue for it, then lets
     * go: PostgreSQL grants the row in the order they asked, so `first` really goes first.
     */
    async function inOrder<A, B>(ticket: string, first: () => Promise<A>, second: () => Promise<B>) {
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      let held!: () => void;
      const isHeld = new Promise<void>((r) => {
        held = r;
      });
      const holder = s.deps.db.transaction().execute(async (trx) => {
        await sql`select id from documents where ticket = ${ticket} for update`.execute(trx);
        held();
        await gate;
      });
      await isHeld;
      const waitingBefore = await lockWaiters();
      const a = settle(first());
      await untilWaiting(waitingBefore + 1);
      const b = settle(second());
      await untilWaiting(waitingBefore + 2);
      release();
      await holder;
      return Promise.all([a, b]);
    }

    it('the signature first: it is made, and the withdrawal is refused as signed', async () => {
      const ticket = await completedDocument();
      const e = await s.client.endorseDocument(ticket, endorsement(ANA_LINK, BEATRIZ));
      const [signed, withdrawn] = await inOrder(
        ticket,
        () => call('POST', `/sign/api/${tokenOf(e.signer_url)}/sign`, typed('Ana Pérez')),
        () => s.client.withdrawEndorsement(ticket, e.endorsement_id, 'too late'),
      );
      expect(signed.ok && signed.value.status).toBe(200);
      expect(withdrawn.ok).toBe(false);
      const err = (withdrawn as { error: { status: number; code: string; details: unknown } }).error;
      expect([err.status, err.code, err.details]).toEqual([409, 'ENDORSEMENT_NOT_PENDING', { status: 'signed' }]);
      expect((await s.client.listEndorsements(ticket)).endorsements.map((x) => x.status)).toEqual(['signed']);
      const checked = await pdfsig((await s.client.downloadDocument('original', ticket)).bytes, rootPem);
      expect(checked.signatures.map((x) => x.valid)).toEqual([true, true]);
      expect((await s.client.documentHistory(ticket)).entries.map((x) => x.action)).not.toContain('endorsement_withdrawn');
    });

    it('the withdrawal first: it is made, and the signature is refused as withdrawn, the document untouched', async () => {
      const ticket = await completedDocument();
      const before = sha256((await s.client.downloadDocument('original', ticket)).bytes);
      const e = await s.client.endorseDocument(ticket, endorsement(ANA_LINK, BEATRIZ));
      const [withdrawn, signed] = await inOrder(
        ticket,
        () => s.client.withdrawEndorsement(ticket, e.endorsement_id, 'wrong text'),
        () => call('POST', `/sign/api/${tokenOf(e.signer_url)}/sign`, typed('Ana Pérez')),
      );
      expect(withdrawn.ok && withdrawn.value.status).toBe('withdrawn');
      expect(signed.ok && [signed.value.status, signed.value.json.error.code]).toEqual([409, 'ENDORSEMENT_WITHDRAWN']);
      expect((await s.client.listEndorsements(ticket)).endorsements.map((x) => x.status)).toEqual(['withdrawn']);
      expect(sha256((await s.client.downloadDocument('original', ticket)).bytes)).toBe(before);
      expect(await eventKinds(s.deps.db, ticket)).toEqual(['original_signed', 'document_completed']);
      expect((await s.client.documentHistory(ticket)).entries.map((x) => x.action)).not.toContain('endorsed');
    });
  });
});
