// Certified email end to end, with a real SMTP server on loopback: the document sent (attached, and
// by a link), the SHA-256 of the bytes the server received, its reply with the queue id, the first
// open through the image and the first download through the link kept apart, delivery-status
// notifications fed as the operator's mail system would (`sello mail dsn`), email_error once, the
// evidence PDF judged by pdfsig and pdftotext, and the 400s and 404s.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runMailCommand } from '../../src/cli/mail.js';
import { MAIL_MAX_ATTEMPTS } from '../../src/jobs/payloads/send-email.js';
import { MailDeliveryError } from '../../src/notify/email-transport.js';
import { getCertifiedEmailData } from '../../src/domain/certified-email/get-certified-email-data.js';
import { CertifiedEmailData } from '../../src/schemas/certified-email.js';
import { droppedKeys } from '../helpers/schema-keys.js';
import { apiError } from '../helpers/api-error.js';
import { movableClock } from '../helpers/flow-clock.js';
import { startMailFlow, type MailFlow } from '../helpers/mail-flow.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import type { CaughtMail } from '../helpers/smtp-catcher.js';
import { openAndSign } from '../helpers/signer-page.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';
import { insertPackage, listPackages } from '../../src/store/packages-repo.js';

const MINUTE = 60_000;
const STEP = 3 * MINUTE;
// Kept behind the real time, within the service CA's first hour (its certificates start an hour
// before it was made): the seal's certificate starts at the service's clock, and pdfsig judges it at
// the real time, which must not come before it. The clock moves in steps of a few minutes.
const clock = movableClock(new Date(Date.now() - 50 * MINUTE));
let f: MailFlow;
let pdf: Buffer;
let dir: string;
let rootPem: string;
const box = { lx: 60, ly: 60, tx: 260, ty: 130 };
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  f = await startMailFlow({ clock });
  pdf = await makePdf([A4]);
  dir = mkdtempSync(join(tmpdir(), 'sello-cemail-'));
  rootPem = await (await fetch(`${f.s.baseUrl}/pki/ca.pem`)).text();
});
afterAll(async () => {
  await f?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath ?? e.path, e.name));
}

function mailTo(address: string): CaughtMail[] {
  return f.smtp.messages.filter((m) => m.to.includes(address));
}

/** The path of a link in the email (the open image or the download link), on the test server. */
function link(m: CaughtMail, kind: 'open' | 'download'): string {
  const url = new RegExp(`https?://[^"\\s<>]+/certified-email/${kind}/[A-Za-z0-9_-]{43}`).exec(m.html)?.[0];
  expect(url, `${kind} link in the email`).toBeDefined();
  return `${f.s.baseUrl}${new URL(url!).pathname}`;
}

function pdfText(file: Buffer): string {
  const path = join(dir, `e${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(path, file);
  // The layout breaks long hashes with zero-width spaces; the reader wants them whole.
  return execFileSync('pdftotext', ['-raw', path, '-'], { encoding: 'utf8' }).replace(/\u200b/g, '');
}

/** A delivery-status notification (RFC 3464) as a receiving mail system would write it. */
function dsn(o: {
  messageId?: string;
  envelopeId?: string;
  recipient: string;
  action: string;
  status: string;
  diagnostic: string;
}): Buffer {
  const b = 'dsn-boundary-1';
  return Buffer.from(
    [
      'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
      'To: no-reply@sello.test',
      'Subject: Undelivered Mail Returned to Sender',
      'MIME-Version: 1.0',
      `Content-Type: multipart/report; report-type=delivery-status; boundary="${b}"`,
      '',
      `--${b}`,
      'Content-Type: text/plain; charset=us-ascii',
      '',
      'This is the mail system at host mx.example.net. Your message could not be delivered.',
      '',
      `--${b}`,
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.example.net',
      ...(o.envelopeId ? [`Original-Envelope-Id: ${o.envelopeId}`] : []),
      'Arrival-Date: Mon, 2 Mar 2026 17:04:05 +0000',
      '',
      `Final-Recipient: rfc822; ${o.recipient}`,
      `Original-Recipient: rfc822;${o.recipient}`,
      `Action: ${o.action}`,
      `Status: ${o.status}`,
      'Remote-MTA: dns; mailbox.example.net',
      `Diagnostic-Code: smtp; ${o.diagnostic}`,
      '',
      `--${b}`,
      'Content-Type: text/rfc822-headers',
      '',
      'From: Sello <no-reply@sello.test>',
      `To: ${o.recipient}`,
      ...(o.messageId ? [`Message-ID: ${o.messageId}`] : []),
      'Subject: whatever it was',
      '',
      `--${b}--`,
      '',
    ].join('\r\n'),
  );
}

async function feedDsn(raw: Buffer): Promise<string> {
  const file = join(dir, `dsn${Math.random().toString(36).slice(2)}.eml`);
  writeFileSync(file, raw);
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    await runMailCommand(f.s.deps, { sub: 'dsn', json: true, file });
    return String(log.mock.calls.at(-1)?.[0] ?? '');
  } finally {
    log.mockRestore();
  }
}

async function emailErrors(recipient: string) {
  return (await f.s.deps.db.selectFrom('notifications').select(['meta', 'kind']).where('kind', '=', 'email_error').execute())
    .map((n) => n.meta as { channel: string; recipient: string; code: string; reply: string })
    .filter((m) => m.recipient === recipient);
}

async function signAll(stickers: { signer_url: string }[]) {
  for (const st of stickers) {
    await openAndSign(f.s.baseUrl, st.signer_url);
  }
}

describe('certified email of a document without signers', () => {
  const to = 'carla@example.com';
  let ticket: string;
  let sent: CaughtMail;

  it('is sent when the document is created, the PDF attached, with the subject and message given', async () => {
    const created = await f.s.client.createDocument({
      b64_doc: pdf.toString('base64'),
      name: 'Notificación de rescisión',
      certified_email: { to: 'Carla@Example.com', subject: 'Rescisión del contrato 42', message: 'Carla:\nadjunto la notificación.' },
    });
    ticket = created.document_ticket;
    expect(created.warnings).toEqual([]);
    expect((await f.s.client.certifiedEmailData(ticket)).status).toBe('queued');
    await f.jobs.runDue();

    const caught = mailTo(to);
    expect(caught).toHaveLength(1);
    sent = caught[0];
    expect(sent.subject).toBe('Rescisión del contrato 42');
    expect(sent.text).toContain('adjunto la notificación.');
    expect(sent.attachments).toHaveLength(1);
    expect(sent.attachments[0]).toMatchObject({ filename: 'Notificación de rescisión.pdf', mimeType: 'application/pdf' });
    expect(sent.attachments[0].content.equals(pdf)).toBe(true);
  });

  it('records the SHA-256 of the bytes the SMTP server received, the moment it accepted them and its reply with the queue id', async () => {
    const d = await f.s.client.certifiedEmailData(ticket);
    expect(d).toMatchObject({
      recipient: to,
      subject: 'Rescisión del contrato 42',
      message: 'Carla:\nadjunto la notificación.',
      status: 'sent',
    });
    expect(d.content_sha256).toBe(sha256(sent.raw));
    expect(d.evidence.content_bytes).toBe(sent.raw.length);
    expect(d.smtp_reply).toBe(`250 Ok: queued as ${sent.queueId}`);
    expect(d.sent_at).toBe(clock.now().toISOString());
    expect(d.evidence.message_id).toMatch(/^<[0-9a-f-]{36}@/);
    expect(sent.raw.toString('latin1')).toContain(`Message-ID: ${d.evidence.message_id}`);
    expect(d.evidence).toMatchObject({ document_sha256: sha256(pdf), delivery: 'attachment', open: null, download: null, refused: null });
    expect(d.evidence.pdf).toBe(`${f.s.deps.config.publicUrl}/api/certifiedEmail/${ticket}/evidence`);
    for (const absent of ['opened_at', 'downloaded_at', 'delivered_at', 'bounced_at']) {
      expect(d).not.toHaveProperty(absent);
    }
  });

  it('keeps the message sealed at rest: no blob holds its links, and a later attempt sends the same bytes', async () => {
    const to = 'dario@example.com';
    f.smtp.defer.set(to, 'data');
    const created = await f.s.client.createDocument({
      b64_doc: pdf.toString('base64'),
      certified_email: { to, subject: 'Aviso de pago', message: 'Dario: adjunto el aviso.' },
    });
    await f.jobs.runDue();
    expect(f.smtp.deferred.get(to)).toBe(1);
    f.smtp.defer.delete(to);
    // graphile-worker waits after a failure; the retry is made due at once.
    await sql`update graphile_worker._private_jobs set run_at = now() where key like 'mail:%'`.execute(f.s.deps.db);
    await f.jobs.runDue();
    const [m] = mailTo(to);
    const d = await f.s.client.certifiedEmailData(created.document_ticket);
    expect(d.status).toBe('sent');
    expect(d.content_sha256).toBe(sha256(m.raw));
    // The links' tokens: the database keeps their hashes, and no blob holds them in the clear.
    const tokens = (['open', 'download'] as const).map((kind) => link(m, kind).split('/').pop()!);
    expect(await f.s.deps.blobs.has(d.content_sha256!)).toBe(false);
    const blobs = await filesUnder(join(f.s.dataDir, 'blobs'));
    expect(blobs.length).toBeGreaterThan(0);
    for (const file of blobs) {
      const text = readFileSync(file).toString('latin1');
      for (const token of tokens) {
        expect(text.includes(token), `${token} in ${file}`).toBe(false);
      }
    }
  });

  it('records the first open through the image once, apart from the download', async () => {
    const openedAt = clock.now().toISOString();
    const res = await fetch(link(sent, 'open'), { headers: { 'user-agent': 'MailClient/1.0' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/gif');
    const gif = Buffer.from(await res.arrayBuffer());
    expect(gif.subarray(0, 6).toString()).toBe('GIF89a');
    expect([gif.readUInt16LE(6), gif.readUInt16LE(8)]).toEqual([1, 1]);

    clock.advance(STEP);
    expect((await fetch(link(sent, 'open'), { headers: { 'user-agent': 'Other/2.0' } })).status).toBe(200);
    const d = await f.s.client.certifiedEmailData(ticket);
    expect(d.opened_at).toBe(openedAt);
    expect(d.evidence.open).toMatchObject({ seen_through: 'tracking_image', user_agent: 'MailClient/1.0' });
    expect(d).not.toHaveProperty('downloaded_at');
    expect(d.evidence.download).toBeNull();
  });

  it('serves the exact document through the link and records the first download once', async () => {
    clock.advance(STEP);
    const downloadedAt = clock.now().toISOString();
    const res = await fetch(link(sent, 'download'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await res.arrayBuffer()).equals(pdf)).toBe(true);
    clock.advance(STEP);
    expect((await fetch(link(sent, 'download'))).status).toBe(200);
    const d = await f.s.client.certifiedEmailData(ticket);
    expect(d.downloaded_at).toBe(downloadedAt);
    expect(d.opened_at).not.toBe(d.downloaded_at);
    expect(d.evidence.download).toMatchObject({ seen_through: 'download_link' });
  });

  it('issues the evidence as a PDF sealed by the service: pdfsig says valid and trusted, and it states the evidence', async () => {
    const d = await f.s.client.certifiedEmailData(ticket);
    const evidence = await f.s.client.certifiedEmailEvidence(ticket);
    const sig = await pdfsig(evidence, rootPem);
    expect(sig.signatures).toHaveLength(1);
    expect(sig.signatures[0], sig.output).toMatchObject({ valid: true, trusted: true, totalDocumentSigned: true });
    expect(sig.signatures[0].commonName).toBe('Sello — constancia de correo certificado');
    expect((await qpdfCheckAsync(evidence)).ok).toBe(true);
    const shown = pdfText(evidence);
    for (const expected of [
      'Correo certificado: constancia',
      to,
      'Rescisión del contrato 42',
      d.content_sha256!,
      d.evidence.message_id!,
      `queued as ${sent.queueId}`,
      sha256(pdf),
      'MailClient/1.0',
      'lectura probable',
      'recuperación comprobada',
    ]) {
      expect(shown).toContain(expected);
    }
    // Nothing new known: the same sealed file again.
    expect((await f.s.client.certifiedEmailEvidence(ticket)).equals(evidence)).toBe(true);
  });

  it('takes a bounce fed as a delivery-status notification: bounced_at set and email_error once', async () => {
    const d = await f.s.client.certifiedEmailData(ticket);
    // The recipient knows the Message-ID and could write a report: one matched by it alone is kept,
    // marked unverified, and changes nothing.
    const forged = dsn({ messageId: d.evidence.message_id!, recipient: to, action: 'failed', status: '5.1.1', diagnostic: '550 forged' });
    expect(JSON.parse(await feedDsn(forged))).toMatchObject({ document_ticket: ticket, verified: false, bounced: false });
    expect((await f.s.client.certifiedEmailData(ticket)).bounced_at).toBeUndefined();
    expect(await emailErrors(to)).toEqual([]);
    // A genuine report carries the envelope id the service gave the SMTP server, never in the headers.
    const [sent] = mailTo(to);
    expect(sent.envid).toMatch(/^[0-9a-f]{64}$/);
    expect(sent.raw.toString('latin1')).not.toContain(sent.envid);
    clock.advance(STEP);
    const bouncedAt = clock.now().toISOString();
    const report = dsn({
      envelopeId: sent.envid!,
      messageId: d.evidence.message_id!,
      recipient: to,
      action: 'failed',
      status: '5.1.1',
      diagnostic: '550 5.1.1 <carla@example.com>: mailbox unknown',
    });
    expect(JSON.parse(await feedDsn(report))).toMatchObject({ document_ticket: ticket, action: 'failed', bounced: true, verified: true });
    clock.advance(STEP);
    expect(JSON.parse(await feedDsn(report))).toMatchObject({ bounced: false });

    const after = await f.s.client.certifiedEmailData(ticket);
    expect(after.status).toBe('bounced');
    expect(after.bounced_at).toBe(bouncedAt);
    expect(after.evidence.delivery_reports).toHaveLength(3);
    expect(after.evidence.delivery_reports[0]).toMatchObject({ verified: false, diagnostic_code: 'smtp; 550 forged' });
    expect(after.evidence.delivery_reports[1]).toMatchObject({
      verified: true,
      action: 'failed',
      status: '5.1.1',
      recipient: to,
      reporting_mta: 'dns; mx.example.net',
    });
    const errors = await emailErrors(to);
    expect(errors).toEqual([
      { channel: 'email', recipient: to, code: '5.1.1', reply: 'smtp; 550 5.1.1 <carla@example.com>: mailbox unknown' },
    ]);
    const history = await f.s.client.documentHistory(ticket);
    expect(history.entries.map((e) => e.action)).toEqual(
      expect.arrayContaining([
        'certified_email_queued',
        'certified_email_sent',
        'certified_email_opened',
        'certified_email_downloaded',
        'certified_email_bounced',
      ]),
    );
    expect(history.chain.valid).toBe(true);
    // Everything the use case answers reaches the client: the schema drops no field.
    const account = await f.s.deps.db.selectFrom('accounts').select('id').where('web_id', '=', f.s.creds.webId).executeTakeFirstOrThrow();
    expect(droppedKeys(CertifiedEmailData, await getCertifiedEmailData(f.s.deps, { accountId: account.id, ticket }))).toEqual([]);
  });

  it('refuses a report that matches no certified email or is not a delivery-status notification, recording nothing', async () => {
    const stray = dsn({ messageId: '<nobody@elsewhere.example>', recipient: to, action: 'failed', status: '5.1.1', diagnostic: '550 no' });
    await expect(feedDsn(stray)).rejects.toMatchObject({ code: 'CERTIFIED_EMAIL_NOT_FOUND' });
    await expect(feedDsn(Buffer.from('Subject: hello\r\n\r\njust text\r\n'))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect((await f.s.client.certifiedEmailData(ticket)).evidence.delivery_reports).toHaveLength(3);
  });
});

describe('certified email of a document with signers', () => {
  it('waits for the last signature, then sends the signed original; a delivery report by envelope id sets delivered_at', async () => {
    const to = 'notario@example.com';
    const created = await f.s.client.createDocument({
      b64_doc: pdf.toString('base64'),
      name: 'Poder',
      stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', page: 0, rect: box }],
      certified_email: { to, subject: 'Poder firmado', message: '' },
    });
    await f.jobs.runDue();
    expect(mailTo(to)).toHaveLength(0);
    const waiting = await f.s.client.certifiedEmailData(created.document_ticket);
    expect(waiting).toMatchObject({ status: 'waiting', evidence: { message_id: null, document_sha256: null } });
    expect(waiting).not.toHaveProperty('content_sha256');

    await signAll(created.stickers);
    await f.jobs.runDue();
    const [m] = mailTo(to);
    const original = await f.s.client.downloadDocument('original', created.document_ticket);
    expect(m.attachments[0].content.equals(original.bytes)).toBe(true);
    expect(original.bytes.equals(pdf)).toBe(false);

    clock.advance(STEP);
    const out = await feedDsn(
      dsn({ envelopeId: m.envid!, recipient: to, action: 'delivered', status: '2.0.0', diagnostic: '250 2.0.0 Ok' }),
    );
    expect(JSON.parse(out)).toMatchObject({ delivered: true, bounced: false });
    const d = await f.s.client.certifiedEmailData(created.document_ticket);
    expect(d).toMatchObject({ status: 'delivered', delivered_at: clock.now().toISOString() });
    expect(d.content_sha256).toBe(sha256(m.raw));
    expect(await emailErrors(to)).toEqual([]);
  });
});

describe('certified email refused by the SMTP server', () => {
  it('records the refusal and emits email_error once, even when a bounce for it arrives later', async () => {
    const to = 'gone@example.com';
    f.smtp.refuse.add(to);
    const created = await f.s.client.createDocument({
      b64_doc: pdf.toString('base64'),
      certified_email: { to, subject: 'Aviso', message: 'Aviso formal.' },
    });
    await f.jobs.runDue();
    const d = await f.s.client.certifiedEmailData(created.document_ticket);
    expect(d.status).toBe('refused');
    expect(d.evidence.refused?.reply).toMatch(/550/);
    expect(d.evidence.refused?.by_server).toBe(true);
    expect(d).not.toHaveProperty('sent_at');
    const envid = (
      await sql<{ envelope_id: string }>`select envelope_id from certified_emails where recipient = ${to}`.execute(f.s.deps.db)
    ).rows[0].envelope_id;
    await feedDsn(dsn({ envelopeId: envid, recipient: to, action: 'failed', status: '5.1.1', diagnostic: '550 gone' }));
    const errors = await emailErrors(to);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ channel: 'email', recipient: to, code: '550' });
  });

  it('never claims a refusal, nor the hash of what a server received, when no server ever answered', async () => {
    const to = 'nadie@example.com';
    const created = await f.s.client.createDocument({
      b64_doc: pdf.toString('base64'),
      certified_email: { to, subject: 'Aviso', message: 'Aviso formal.' },
    });
    // The last attempt, and the SMTP server unreachable: the connection fails before any reply.
    await sql`update mail_messages set attempts = ${MAIL_MAX_ATTEMPTS - 1} where recipient = ${to}`.execute(f.s.deps.db);
    const transport = f.s.deps.mail!.transport;
    const sendRaw = vi
      .spyOn(transport, 'sendRaw')
      .mockRejectedValue(new MailDeliveryError('connect ECONNREFUSED', undefined, 'connect ECONNREFUSED 127.0.0.1:25', false));
    try {
      await f.jobs.runDue();
    } finally {
      sendRaw.mockRestore();
    }
    const d = await f.s.client.certifiedEmailData(created.document_ticket);
    expect(d.status).toBe('failed');
    expect(d.evidence.refused).toMatchObject({ by_server: false, reply: expect.stringContaining('ECONNREFUSED') });
    expect(d).not.toHaveProperty('content_sha256');
    expect((await f.s.client.documentHistory(created.document_ticket)).entries.map((e) => e.action)).toContain('certified_email_failed');
    expect(await emailErrors(to)).toHaveLength(1);
  });
});

describe('certified email of a NOM-151 document', () => {
  it('stamps the sealed evidence with a NOM-151 document time stamp, once per new issue, also when asked for at once', async () => {
    const created = await f.s.client.createDocument({
      b64_doc: pdf.toString('base64'),
      nom151: true,
      certified_email: { to: 'nom@example.com', subject: 'Con sello', message: 'M' },
    });
    await f.jobs.runDue();
    const stamps = async () => (await sql<{ n: number }>`select count(*)::int as n from stamps`.execute(f.s.deps.db)).rows[0].n;
    const before = await stamps();
    // Three requests at once: one file is issued and stamped, the others wait for it and get it.
    const [evidence, ...others] = await Promise.all([1, 2, 3].map(() => f.s.client.certifiedEmailEvidence(created.document_ticket)));
    for (const other of others) {
      expect(other.equals(evidence)).toBe(true);
    }
    const sig = await pdfsig(evidence, rootPem);
    expect(sig.signatures, sig.output).toHaveLength(2);
    expect(sig.signatures[0]).toMatchObject({ valid: true, trusted: true });
    // Poppler lists the document time stamp but does not verify RFC 3161 tokens; the service's
    // stamp check (the one the NOM-151 validation operation answers with) does.
    expect(sig.signatures[1]).toMatchObject({ field: 'Timestamp_1', totalDocumentSigned: true });
    expect(sig.signatures[1].commonName).toContain('Time-Stamping Authority');
    const check = await f.s.client.validatePdfStamps(evidence);
    expect(check.valid).toBe(true);
    expect(check.stamps).toHaveLength(1);
    expect(await stamps()).toBe(before + 1);
    expect((await f.s.client.certifiedEmailEvidence(created.document_ticket)).equals(evidence)).toBe(true);
    expect(await stamps()).toBe(before + 1);
  });

  it('issues the first evidence of more certified emails at once than the database pool has connections', async () => {
    // Each issue holds a connection for its lock and needs another for its work: twelve at once
    // (the pool has ten) must all be answered, not wait for each other's connections for good.
    const tickets: string[] = [];
    for (let i = 0; i < 12; i++) {
      const created = await f.s.client.createDocument({
        b64_doc: pdf.toString('base64'),
        certified_email: { to: `pool${i}@example.com`, subject: `Aviso ${i}`, message: 'M' },
      });
      tickets.push(created.document_ticket);
    }
    const files = await Promise.all(tickets.map((t) => f.s.client.certifiedEmailEvidence(t)));
    expect(files.map((file) => pdfText(file).includes('Correo certificado: constancia'))).toEqual(tickets.map(() => true));
  });

  it('spends no stamps piece when the stamped evidence cannot be kept, and one when it is', async () => {
    const db = f.s.deps.db;
    const other = await f.s.newAccount('Evidence pieces');
    const accountId = (await sql<{ id: string }>`select id::text as id from accounts where web_id = ${other.creds.webId}`.execute(db))
      .rows[0].id;
    const now = f.s.deps.clock.now().getTime();
    await insertPackage(db, {
      publicId: 'evidence-stamps',
      accountId,
      kind: 'stamps',
      pieces: 5,
      validFrom: new Date(now - 24 * 60 * MINUTE),
      validTo: new Date(now + 24 * 60 * MINUTE),
    });
    const created = await other.client.createDocument({
      b64_doc: pdf.toString('base64'),
      nom151: true,
      certified_email: { to: 'pieces@example.com', subject: 'Con sello', message: 'M' },
    });
    await f.jobs.runDue();
    const spent = async () => ({
      used: (await listPackages(db, accountId)).find((p) => p.public_id === 'evidence-stamps')!.used,
      consumed: (
        await sql<{ n: number }>`select count(*)::int as n from consumption where account_id = ${accountId} and kind = 'stamps'`.execute(db)
      ).rows[0].n,
      stamps: (await sql<{ n: number }>`select count(*)::int as n from stamps where account_id = ${accountId}`.execute(db)).rows[0].n,
    });
    const before = await spent();

    // The database refuses to keep the file: the failure comes where the evidence row is written,
    // after the stamp was obtained and the piece taken in the same transaction.
    await sql`create function refuse_evidence() returns trigger language plpgsql as $$
      begin raise exception 'evidence not kept (test)'; end $$`.execute(db);
    await sql`create trigger refuse_evidence before update of evidence_pdf_sha256 on certified_emails
      for each row execute function refuse_evidence()`.execute(db);
    try {
      const refused = await apiError(other.client.certifiedEmailEvidence(created.document_ticket));
      expect([refused.status, refused.code]).toEqual([500, 'INTERNAL']);
    } finally {
      await sql`drop trigger refuse_evidence on certified_emails`.execute(db);
      await sql`drop function refuse_evidence()`.execute(db);
    }
    expect(await spent()).toEqual(before);

    // The blob store fails to take the file: nothing spent either.
    const put = vi.spyOn(f.s.deps.blobs, 'put').mockRejectedValue(new Error('disk full (test)'));
    try {
      const failed = await apiError(other.client.certifiedEmailEvidence(created.document_ticket));
      expect(failed.status).toBe(500);
      expect(put).toHaveBeenCalled();
    } finally {
      put.mockRestore();
    }
    expect(await spent()).toEqual(before);

    // Issued and kept: one piece, one stamp recorded; asked again, the same file and nothing more.
    const evidence = await other.client.certifiedEmailEvidence(created.document_ticket);
    expect((await other.client.validatePdfStamps(evidence)).valid).toBe(true);
    const after = { used: before.used + 1, consumed: before.consumed + 1, stamps: before.stamps + 1 };
    expect(await spent()).toEqual(after);
    expect((await other.client.certifiedEmailEvidence(created.document_ticket)).equals(evidence)).toBe(true);
    expect(await spent()).toEqual(after);
  });
});

describe('certified email over the attachment limit', () => {
  it('sends the link alone, and says so', async () => {
    const limits = f.s.deps.config.limits as { mailAttachmentBytes: number };
    const before = limits.mailAttachmentBytes;
    limits.mailAttachmentBytes = 100;
    try {
      const to = 'big@example.com';
      const created = await f.s.client.createDocument({
        b64_doc: pdf.toString('base64'),
        name: 'Anexo',
        certified_email: { to, subject: 'Anexo', message: 'Va el anexo.' },
      });
      await f.jobs.runDue();
      const [m] = mailTo(to);
      expect(m.attachments).toHaveLength(0);
      expect(m.text).toContain('demasiado grande para adjuntarlo');
      const res = await fetch(link(m, 'download'));
      expect(Buffer.from(await res.arrayBuffer()).equals(pdf)).toBe(true);
      expect((await f.s.client.certifiedEmailData(created.document_ticket)).evidence.delivery).toBe('link');
    } finally {
      limits.mailAttachmentBytes = before;
    }
  });
});

describe('certified email: what is refused', () => {
  it('answers 404 for a document without certified email, another account, and unknown links', async () => {
    const plain = await f.s.client.createDocument({ b64_doc: pdf.toString('base64') });
    const e1 = await apiError(f.s.client.certifiedEmailData(plain.document_ticket));
    expect([e1.status, e1.code]).toEqual([404, 'CERTIFIED_EMAIL_NOT_FOUND']);
    const e2 = await apiError(f.s.client.certifiedEmailEvidence(plain.document_ticket));
    expect([e2.status, e2.code]).toEqual([404, 'CERTIFIED_EMAIL_NOT_FOUND']);

    const mine = await f.s.client.createDocument({
      b64_doc: pdf.toString('base64'),
      certified_email: { to: 'x@example.com', subject: 'S', message: 'M' },
    });
    const other = await f.s.newAccount('Otra');
    const e3 = await apiError(other.client.certifiedEmailData(mine.document_ticket));
    expect([e3.status, e3.code]).toEqual([404, 'CERTIFIED_EMAIL_NOT_FOUND']);

    for (const path of ['open', 'download']) {
      const res = await fetch(`${f.s.baseUrl}/certified-email/${path}/${'A'.repeat(43)}`);
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe('CERTIFIED_EMAIL_NOT_FOUND');
    }
  });

  it('answers 400 naming the field for a bad certified_email, and creates nothing', async () => {
    const count = async () =>
      Number(
        (
          await f.s.deps.db
            .selectFrom('documents')
            .select((e) => e.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const cases: [unknown, string][] = [
      ['carla@example.com', 'certified_email'],
      [{ to: 'not an address', subject: 'S', message: 'M' }, 'certified_email.to'],
      [{ to: 'a@example.com, b@example.com', subject: 'S', message: 'M' }, 'certified_email.to'],
      [{ subject: 'S', message: 'M' }, 'certified_email.to'],
      [{ to: 'a@example.com', subject: '', message: 'M' }, 'certified_email.subject'],
      [{ to: 'a@example.com', subject: 'x'.repeat(201), message: 'M' }, 'certified_email.subject'],
      [{ to: 'a@example.com', subject: 'two\r\nBcc: evil@example.com', message: 'M' }, 'certified_email.subject'],
      [{ to: 'a@example.com', subject: 'S', message: 7 }, 'certified_email.message'],
      [{ to: 'a@example.com', subject: 'S', message: 'x'.repeat(10_001) }, 'certified_email.message'],
    ];
    for (const [value, field] of cases) {
      const e = await apiError(f.s.client.createDocument({ b64_doc: pdf.toString('base64'), certified_email: value as never }));
      expect([e.status, e.code, (e.details as { field?: string }).field], JSON.stringify(value)).toEqual([400, 'INVALID_INPUT', field]);
      expect(e.message.startsWith(`${field}:`)).toBe(true);
    }
    const set = await f.s.client.createDocumentSet({ name: 'Conjunto' });
    const e = await apiError(
      f.s.client.createDocument({
        b64_doc: pdf.toString('base64'),
        document_set: set.uuid,
        certified_email: { to: 'a@example.com', subject: 'S', message: 'M' },
      }),
    );
    expect([e.status, (e.details as { field?: string }).field]).toEqual([400, 'certified_email']);
    expect(await count()).toBe(before);
  });
});
