// The outbox: an email is a row and a job committed together; the job delivers it over SMTP (a
// real catcher), keeps it in the outbox without SMTP, retries temporary failures, and reports a
// refused recipient, or one still deferred at the last attempt, as email_error.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueEmail } from '../../src/domain/mail/queue-email.js';
import { MailDeliveryError, createSmtpTransport } from '../../src/notify/email-transport.js';
import { invitationMail } from '../../src/notify/email-templates.js';
import { MAIL_MAX_ATTEMPTS } from '../../src/jobs/payloads/send-email.js';
import { findMessage } from '../../src/store/mail-repo.js';
import { jobRunner, type JobRunner } from '../helpers/jobs.js';
import { makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp-catcher.js';

let s: TestServer;
let smtp: SmtpCatcher;
let jobs: JobRunner;
let accountId: string;
let documentId: string;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  s = await startTestServer();
  jobs = jobRunner(s.connectionString, s.deps);
  const doc = await s.client.createDocument({ b64_doc: (await makePdf()).toString('base64'), name: 'Contrato' });
  const row = await s.deps.db
    .selectFrom('documents')
    .select(['id', 'account_id'])
    .where('ticket', '=', doc.document_ticket)
    .executeTakeFirstOrThrow();
  accountId = row.account_id;
  documentId = row.id;
});
afterAll(async () => {
  await jobs?.close();
  await s?.close();
  await smtp?.close();
});

const mail = invitationMail({
  language: 'es',
  signerName: 'Ana',
  documentName: 'Contrato',
  signUrl: 'https://s.example/sign/t',
  senderName: 'Acme',
});

async function queue(to: string, attach = false) {
  const sha = attach ? await s.deps.blobs.put(Buffer.from('%PDF-1.7 attached')) : undefined;
  return s.deps.db.transaction().execute((trx) =>
    queueEmail(trx, s.deps, {
      accountId,
      documentId,
      kind: 'invitation',
      to,
      mail,
      attachments: sha ? [{ filename: 'Contrato.pdf', sha256: sha, contentType: 'application/pdf' }] : [],
    }),
  );
}

describe('outbox', () => {
  it('keeps messages in the outbox when no SMTP server is configured, readable at /dev/outbox', async () => {
    const id = await queue('ana@example.com');
    await jobs.runDue();
    expect((await findMessage(s.deps, id))?.status).toBe('outbox');
    const res = await fetch(`${s.baseUrl}/dev/outbox`);
    const body = (await res.json()) as { messages: { message_id: string; subject: string; text: string }[] };
    expect(body.messages[0]).toMatchObject({ message_id: id, subject: 'Firma solicitada: Contrato' });
    expect(body.messages[0].text).toContain('https://s.example/sign/t');
  });

  it('a message rolled back with its transaction is neither stored nor sent', async () => {
    const before = smtp.messages.length;
    await s.deps.db
      .transaction()
      .execute(async (trx) => {
        await queueEmail(trx, s.deps, { accountId, documentId, kind: 'invitation', to: 'x@example.com', mail });
        throw new Error('the change that caused it failed');
      })
      .catch(() => undefined);
    s.deps.mail = { transport: createSmtpTransport(smtp.url), from: 'Sello <no-reply@sello.test>' };
    try {
      await jobs.runDue();
    } finally {
      s.deps.mail = undefined;
    }
    expect(smtp.messages.length).toBe(before);
  });
});

describe('SMTP delivery', () => {
  it('sends once, with its attachment, and a second run sends nothing more', async () => {
    s.deps.mail = { transport: createSmtpTransport(smtp.url), from: 'Sello <no-reply@sello.test>' };
    try {
      const id = await queue('luis@example.com', true);
      await jobs.runDue();
      await jobs.runDue();
      const got = smtp.messages.filter((m) => m.to.includes('luis@example.com'));
      expect(got).toHaveLength(1);
      expect(got[0].subject).toBe('Firma solicitada: Contrato');
      expect(got[0].attachments[0].content.toString()).toBe('%PDF-1.7 attached');
      const row = await findMessage(s.deps, id);
      expect(row?.status).toBe('sent');
      expect(row?.reply).toMatch(/^250/);
    } finally {
      s.deps.mail = undefined;
    }
  });

  it('marks a refused recipient failed and emits email_error with the server reply', async () => {
    smtp.refuse.add('gone@example.com');
    s.deps.mail = { transport: createSmtpTransport(smtp.url), from: 'Sello <no-reply@sello.test>' };
    try {
      const id = await queue('gone@example.com');
      await jobs.runDue();
      expect((await findMessage(s.deps, id))?.status).toBe('failed');
      const n = await s.deps.db
        .selectFrom('notifications')
        .select(['kind', 'meta'])
        .where('kind', '=', 'email_error')
        .executeTakeFirstOrThrow();
      expect(n.meta).toMatchObject({ channel: 'email', recipient: 'gone@example.com', code: '550' });
      expect((n.meta as { reply: string }).reply).toMatch(/550/);
    } finally {
      s.deps.mail = undefined;
    }
  });

  it('retries a temporary failure: the message stays queued and its job remains', async () => {
    s.deps.mail = { transport: createSmtpTransport('smtp://127.0.0.1:1', { timeoutMs: 1000 }), from: 'no-reply@sello.test' };
    try {
      const id = await queue('later@example.com');
      await jobs.runDue();
      const row = await findMessage(s.deps, id);
      expect(row?.status).toBe('queued');
      expect(row?.attempts).toBe(1);
      const job = await s.deps.db
        .selectFrom('graphile_worker.jobs' as never)
        .select(['attempts' as never, 'run_at' as never])
        .where('key' as never, '=', `mail:${id}` as never)
        .executeTakeFirst();
      expect(job).toBeDefined();
    } finally {
      s.deps.mail = undefined;
    }
  });

  it('counts a server that cannot be reached at all (no such host, refused connection) as temporary', async () => {
    for (const url of ['smtp://no-such-host.invalid:25', 'smtp://127.0.0.1:1']) {
      const transport = createSmtpTransport(url, { timeoutMs: 1000 });
      try {
        const err = await transport.send('no-reply@sello.test', { to: 'a@example.com', subject: 's', text: 't', html: '<p>t</p>' }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(MailDeliveryError);
        expect(err).toMatchObject({ permanent: false, responseCode: undefined });
      } finally {
        transport.close();
      }
    }
  });

  // graphile-worker waits exp(n) seconds after the nth failure; the test makes the job due at once.
  const makeDue = (id: string) =>
    sql`update graphile_worker._private_jobs set run_at = now() where key = ${`mail:${id}`}`.execute(s.deps.db);
  const emailErrors = async (recipient: string) =>
    (await s.deps.db.selectFrom('notifications').select(['meta']).where('kind', '=', 'email_error').execute())
      .map((n) => n.meta as { channel: string; recipient: string; code: string; reply: string })
      .filter((meta) => meta.recipient === recipient);

  for (const stage of ['rcpt', 'data'] as const) {
    it(`fails a message still deferred (451 at ${stage.toUpperCase()}) at the 8th attempt, with one email_error`, async () => {
      const to = `busy-${stage}@example.com`;
      smtp.defer.set(to, stage);
      s.deps.mail = { transport: createSmtpTransport(smtp.url), from: 'Sello <no-reply@sello.test>' };
      try {
        const id = await queue(to);
        expect(MAIL_MAX_ATTEMPTS).toBe(8);
        for (let attempt = 1; attempt < MAIL_MAX_ATTEMPTS; attempt++) {
          await jobs.runDue();
          expect(await findMessage(s.deps, id)).toMatchObject({ status: 'queued', attempts: attempt });
          expect(await emailErrors(to)).toHaveLength(0);
          await makeDue(id);
        }
        await jobs.runDue();
        const row = await findMessage(s.deps, id);
        expect(row).toMatchObject({ status: 'failed', attempts: 8 });
        expect(row?.reply).toMatch(/^451/);
        expect(smtp.deferred.get(to)).toBe(8);
        const errors = await emailErrors(to);
        expect(errors).toHaveLength(1);
        expect(errors[0]).toMatchObject({ channel: 'email', recipient: to, code: '451' });
        expect(errors[0].reply).toMatch(/^451/);
        // The last attempt did not throw: graphile-worker completed the job rather than keeping it failed.
        const job = await sql`select 1 from graphile_worker._private_jobs where key = ${`mail:${id}`}`.execute(s.deps.db);
        expect(job.rows).toHaveLength(0);
        await jobs.runDue();
        expect(await emailErrors(to)).toHaveLength(1);
        expect(smtp.deferred.get(to)).toBe(8);
      } finally {
        s.deps.mail = undefined;
        smtp.defer.delete(to);
      }
    });
  }
  it('a message whose attachment cannot be read fails at the last attempt, with one email_error', async () => {
    const to = 'lost-attachment@example.com';
    s.deps.mail = { transport: createSmtpTransport(smtp.url), from: 'Sello <no-reply@sello.test>' };
    try {
      const id = await s.deps.db.transaction().execute((trx) =>
        queueEmail(trx, s.deps, {
          accountId,
          documentId,
          kind: 'conclusion',
          to,
          mail,
          attachments: [{ filename: 'Contrato.pdf', sha256: 'f'.repeat(64), contentType: 'application/pdf' }],
        }),
      );
      for (let attempt = 1; attempt < MAIL_MAX_ATTEMPTS; attempt++) {
        await jobs.runDue();
        expect((await findMessage(s.deps, id))?.status).toBe('queued');
        await makeDue(id);
      }
      await jobs.runDue();
      const row = await findMessage(s.deps, id);
      expect(row?.status).toBe('failed');
      expect(row?.reply).toMatch(/^attachment unreadable/);
      expect(await emailErrors(to)).toHaveLength(1);
      expect(smtp.messages.filter((m) => m.to.includes(to))).toHaveLength(0);
    } finally {
      s.deps.mail = undefined;
    }
  });
});
