// One-time codes and personal links at rest: whoever can read the database must not find a live code
// or a signing token in it. Messages go out through a simulated Twilio and Meta, and, on a service
// with no provider or SMTP server, wait in the outbox, where the operator's commands still show them
// whole. Rows written before bodies were sealed: redacted by the migration once delivered, sealed at
// start while they still wait.
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runMailCommand } from '../../src/cli/mail.js';
import { runMessagesCommand } from '../../src/cli/messages.js';
import { createSecretBox } from '../../src/pki/secret-box.js';
import { listChannelMessages } from '../../src/store/channel-messages-repo.js';
import { openDb } from '../../src/store/db.js';
import { listMessages } from '../../src/store/mail-repo.js';
import { migrate } from '../../src/store/migrate.js';
import { sealMessageBodies } from '../../src/store/seal-message-bodies.js';
import type { Db } from '../../src/store/db.js';
import { databaseUrl } from '../helpers/database-url.js';
import { startChannelSimulator, type ChannelSimulator } from '../helpers/channel-simulator.js';
import { jobRunner, type JobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { inject } from 'vitest';

let sim: ChannelSimulator;
let withProviders: TestServer;
let outboxOnly: TestServer;
let jobsP: JobRunner;
let jobsO: JobRunner;
let pdf: string;

beforeAll(async () => {
  sim = await startChannelSimulator();
  withProviders = await startTestServer({ env: sim.env() });
  outboxOnly = await startTestServer();
  jobsP = jobRunner(withProviders.connectionString, withProviders.deps);
  jobsO = jobRunner(outboxOnly.connectionString, outboxOnly.deps);
  pdf = (await makePdf([A4])).toString('base64');
});
afterAll(async () => {
  await jobsP?.close();
  await jobsO?.close();
  await withProviders?.close();
  await outboxOnly?.close();
  await sim?.close();
});

let seq = 0;
const phone = () => `+52177${String(1_000_000 + ++seq * 11).padStart(7, '0')}`;
const tokenOf = (url: string) => url.split('/sign/')[1];
const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)![1];

/** A signer invited (a workflow) and asked for a code; the service's jobs run after each. */
async function signerWithCode(s: TestServer, jobs: JobRunner, authority: 'SMS' | 'WHATSAPP' | 'EMAIL', data: string) {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: `Pagaré ${++seq}`,
    stickers: [{ authority, data, page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
    workflow: {},
  });
  await jobs.runDue();
  const token = tokenOf(doc.stickers[0].signer_url);
  const res = await fetch(`${s.baseUrl}/sign/api/${token}/otp`, { method: 'POST' });
  expect(res.status).toBe(200);
  await jobs.runDue();
  return { doc, token };
}

/** Every row of every table, as text: a token (43 base64url characters) must be nowhere. */
async function wholeDatabase(db: Db): Promise<string> {
  const tables = await sql<{ s: string; t: string }>`select table_schema as s, table_name as t from information_schema.tables
    where table_schema in ('public', 'graphile_worker') and table_type = 'BASE TABLE'`.execute(db);
  const parts: string[] = [];
  for (const { s, t } of tables.rows) {
    const rows = await sql<{ r: string }>`select x::text as r from ${sql.table(`${s}.${t}`)} x`.execute(db);
    parts.push(...rows.rows.map((r) => r.r));
  }
  return parts.join('\n');
}

/**
 * The text the service keeps about messages: outbox rows, the history, events and their deliveries,
 * queued jobs. (A six-digit code is searched here, not in the whole database, where it could occur
 * by chance inside hexadecimal bytes.)
 */
async function messageTraces(db: Db): Promise<string> {
  const q = async (query: ReturnType<typeof sql<{ r: string }>>) => (await query.execute(db)).rows.map((x) => x.r).join('\n');
  return [
    await q(sql`select concat_ws(' ', body_text, template_params::text, reply, error_code) as r from channel_messages`),
    await q(sql`select concat_ws(' ', subject, body_text, body_html, reply) as r from mail_messages`),
    await q(sql`select details::text as r from document_history`),
    await q(sql`select meta::text as r from notifications`),
    await q(sql`select payload::text as r from graphile_worker._private_jobs`),
  ].join('\n');
}

async function printed(run: () => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return lines.join('\n');
}

describe('codes and links sent through a provider', () => {
  it('leave neither the code nor the signing token in the database once the provider took them', async () => {
    const ana = phone();
    const bruno = phone();
    const sms = await signerWithCode(withProviders, jobsP, 'SMS', ana);
    const wa = await signerWithCode(withProviders, jobsP, 'WHATSAPP', bruno);
    const to = (n: string) => sim.messages.filter((m) => m.to === n);
    // What the providers received: the invitation with the link, then the code.
    expect(to(ana).map((m) => m.text)).toEqual([expect.stringContaining(sms.doc.stickers[0].signer_url), expect.stringMatching(/código/)]);
    expect(to(bruno)[0].params).toContain(wa.doc.stickers[0].signer_url);
    const smsCode = codeIn(to(ana)[1].text);
    const waCode = to(bruno)[1].params[0];
    expect(waCode).toMatch(/^\d{6}$/);

    const statuses = await sql<{ status: string }>`select status from channel_messages order by id`.execute(withProviders.deps.db);
    expect(statuses.rows.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
    const all = await wholeDatabase(withProviders.deps.db);
    expect(all).not.toContain(sms.token);
    expect(all).not.toContain(wa.token);
    const traces = await messageTraces(withProviders.deps.db);
    expect(traces).not.toMatch(new RegExp(`\\b${smsCode}\\b`));
    expect(traces).not.toMatch(new RegExp(`\\b${waCode}\\b`));
    // The operator still reads what was sent.
    const listed = JSON.parse(await printed(() => runMessagesCommand(withProviders.deps, { json: true, limit: 10 }))) as { text: string }[];
    expect(listed.map((m) => m.text).join('\n')).toContain(`Su código para firmar es ${smsCode}`);
  });
});

describe('codes and links waiting in the outbox (no provider, no SMTP server)', () => {
  it('are sealed in the database, and the outbox commands show them whole', async () => {
    const carla = phone();
    const sms = await signerWithCode(outboxOnly, jobsO, 'SMS', carla);
    const email = await signerWithCode(outboxOnly, jobsO, 'EMAIL', 'dora@example.com');

    const texts = await printed(() => runMessagesCommand(outboxOnly.deps, { json: false, limit: 10 }));
    expect(texts).toContain(sms.doc.stickers[0].signer_url);
    const smsCode = codeIn(/Su código para firmar es \d{6}/.exec(texts)![0]);
    const mails = await printed(() => runMailCommand(outboxOnly.deps, { sub: 'list', json: true, limit: 10 }));
    const listed = JSON.parse(mails) as { kind: string; status: string; text: string }[];
    expect(listed.map((m) => [m.kind, m.status])).toEqual([
      ['otp', 'outbox'],
      ['invitation', 'outbox'],
    ]);
    expect(listed[1].text).toContain(email.doc.stickers[0].signer_url);
    const mailCode = codeIn(listed[0].text);
    // The development outbox page shows them too.
    const dev = (await (await fetch(`${outboxOnly.baseUrl}/dev/outbox`)).json()) as {
      texts: { text: string }[];
      messages: { html: string }[];
    };
    expect(dev.texts.map((t) => t.text).join('\n')).toContain(smsCode);
    expect(dev.messages[0].html).toContain(mailCode);

    const all = await wholeDatabase(outboxOnly.deps.db);
    expect(all).not.toContain(sms.token);
    expect(all).not.toContain(email.token);
    const traces = await messageTraces(outboxOnly.deps.db);
    expect(traces).not.toMatch(new RegExp(`\\b${smsCode}\\b`));
    expect(traces).not.toMatch(new RegExp(`\\b${mailCode}\\b`));
    // Sealed, not dropped: opened with the master key they read whole.
    const sealed = await sql<{
      n: number;
    }>`select count(*)::int as n from channel_messages where body_sealed is not null and body_text is null`.execute(outboxOnly.deps.db);
    expect(sealed.rows[0].n).toBe(2);
  });
});

describe('rows written before bodies were sealed', () => {
  const TOKEN = randomBytes(32).toString('base64url');
  const OTHER = randomBytes(32).toString('base64url');
  let url: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    // A database at the migration before 0031, with messages an earlier version wrote in the clear.
    const adminUrl = inject('pgAdminUrl');
    const name = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    url = databaseUrl(adminUrl, name);
    drop = async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    };
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`create table schema_migrations (
        version integer primary key, name text not null, applied_at timestamptz not null default now())`);
      const dir = join(import.meta.dirname, '../../src/store/migrations');
      for (const file of (await readdir(dir)).filter((f) => /^\d{4}_.+\.sql$/.test(f) && Number(f.slice(0, 4)) < 31).sort()) {
        await client.query(await readFile(join(dir, file), 'utf8'));
        await client.query('insert into schema_migrations (version, name) values ($1, $2)', [Number(file.slice(0, 4)), file]);
      }
      const mail = `insert into mail_messages (message_id, kind, recipient, subject, body_text, body_html, status, created_at)
                    values ($1, $2, 'eva@example.com', 'Firma', $3, $4, $5, now())`;
      await client.query(mail, ['m-sent', 'otp', 'Su código para firmar es 482913.', '<p>Su código para firmar es 482913.</p>', 'sent']);
      await client.query(mail, [
        'm-outbox',
        'invitation',
        `Firme aquí: https://sign.example/sign/${OTHER}`,
        `<a href="https://sign.example/sign/${OTHER}">Firmar</a>`,
        'outbox',
      ]);
      const text = `insert into channel_messages (message_id, channel, kind, language, recipient, body_text, template_params, status, created_at)
                    values ($1, 'whatsapp', $2, 'es', '+5215500000001', $3, $4::jsonb, $5, now())`;
      await client.query(text, [
        't-delivered',
        'invitation',
        `Firme aquí: https://sign.example/sign/${TOKEN}`,
        JSON.stringify(['Acme', 'Pagaré', `https://sign.example/sign/${TOKEN}`]),
        'delivered',
      ]);
      await client.query(text, ['t-queued', 'otp', 'Su código para firmar es 731904.', JSON.stringify(['731904']), 'queued']);
    } finally {
      await client.end();
    }
  });
  afterAll(async () => {
    await drop?.();
  });

  it('are redacted by the migration once delivered, and sealed at start while they wait', async () => {
    await migrate(url);
    const handle = openDb(url, 2);
    try {
      const db = handle.db;
      const mail = await sql<{ message_id: string; body_text: string; body_html: string }>`
        select message_id, body_text, body_html from mail_messages order by id`.execute(db);
      expect(mail.rows[0]).toEqual({
        message_id: 'm-sent',
        body_text: 'Su código para firmar es [removed].',
        body_html: '<p>Su código para firmar es [removed].</p>',
      });
      // Still waiting: whole until the service, which has the master key, seals it.
      expect(mail.rows[1].body_text).toContain(OTHER);
      const texts = await sql<{ body_text: string; template_params: string[] }>`
        select body_text, template_params from channel_messages order by id`.execute(db);
      expect(texts.rows[0]).toEqual({
        body_text: 'Firme aquí: https://sign.example/sign/[removed]',
        template_params: ['Acme', 'Pagaré', 'https://sign.example/sign/[removed]'],
      });
      expect(texts.rows[1].body_text).toContain('731904');

      const secrets = createSecretBox(randomBytes(32));
      expect(await sealMessageBodies(db, secrets)).toBe(2);
      expect(await sealMessageBodies(db, secrets)).toBe(0);
      const all = await wholeDatabase(db);
      expect(all).not.toContain(TOKEN);
      expect(all).not.toContain(OTHER);
      expect(all).not.toContain('731904');
      expect(all).not.toContain('482913');
      // The outbox still reads them: sealed ones opened, redacted ones as they are.
      const outbox = await listMessages({ db, secrets }, 10);
      expect(outbox.map((m) => m.body_text)).toEqual([
        `Firme aquí: https://sign.example/sign/${OTHER}`,
        'Su código para firmar es [removed].',
      ]);
      const channel = await listChannelMessages({ db, secrets }, 10);
      expect(channel.map((m) => [m.message_id, m.body_text, m.template_params])).toEqual([
        ['t-queued', 'Su código para firmar es 731904.', ['731904']],
        ['t-delivered', 'Firme aquí: https://sign.example/sign/[removed]', ['Acme', 'Pagaré', 'https://sign.example/sign/[removed]']],
      ]);
    } finally {
      await handle.close();
    }
  });
});
