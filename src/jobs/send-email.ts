// Task `send_email` (payload: jobs/payloads/send-email.ts): delivers one queued message. With no SMTP server configured the
// message stays in the outbox (status outbox), readable with `sello mail list` and /dev/outbox.
// A temporary failure (the server unreachable or timing out, a 4xx reply) is counted on the row and
// thrown, so graphile-worker retries with backoff; a permanent one (5xx about the message or
// recipient), or a temporary one on the last of MAIL_MAX_ATTEMPTS attempts, marks the message
// failed and emits email_error with the receiving server's reply, in one transaction, without
// throwing: the row's attempt counter or graphile-worker's, whichever is further (a crash or a
// failure before the send — an unreadable attachment — uses up graphile-worker's attempts without
// counting on the row), decides which attempt is the last, so the outcome and its event commit
// together instead of the message staying queued behind a job graphile-worker has given up on.
// Idempotent: only a queued message is sent, and its row is settled right after the
// server accepted it (at least once across a crash).
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { recordCertifiedRefusal, recordCertifiedSent, sendCertifiedEmail } from '../domain/certified-email/deliver-certified-email.js';
import { emitEvent } from '../domain/events/emit-event.js';
import { MailDeliveryError } from '../notify/email-transport.js';
import { brandedFrom, operatorSender } from '../notify/sender-address.js';
import { senderOf } from '../store/accounts-repo.js';
import { countAttempt, findMessage, settleMessage, type OutboxMessage } from '../store/mail-repo.js';
import { payloadTask } from './job-payload.js';
import { MAIL_MAX_ATTEMPTS, SEND_EMAIL } from './payloads/send-email.js';

export function sendEmailTask(deps: Deps): Task {
  return payloadTask(SEND_EMAIL, async ({ messageId }, helpers) => {
    // graphile-worker counts this attempt already; a job added elsewhere may lack the field.
    const jobAttempt = helpers?.job?.attempts ?? 0;
    const m = await findMessage(deps, messageId);
    if (m?.status !== 'queued') {
      return;
    }
    if (!deps.mail) {
      await settleMessage(deps.db, messageId, { status: 'outbox', reply: null, at: deps.clock.now() });
      return;
    }
    const lastAttempt = (err: { permanent: boolean }) => err.permanent || Math.max(m.attempts + 1, jobAttempt) >= MAIL_MAX_ATTEMPTS;
    let attachments: { filename: string; content: Buffer; contentType: string }[];
    try {
      attachments = await Promise.all(
        m.attachments.map(async (a) => ({ filename: a.filename, content: await deps.blobs.get(a.sha256), contentType: a.content_type })),
      );
    } catch (err) {
      if (!lastAttempt({ permanent: false })) {
        throw err;
      }
      await fail(deps, m, { reply: `attachment unreadable: ${(err as Error).message}`, code: '', byServer: false });
      return;
    }
    // The sending account's brand: its From name and Reply-To (account-brand.ts). A panel sign-in
    // link is the operator's, like the sign-in page that belongs to no account: under the
    // operator's name (SELLO_OPERATOR_NAME) when it has one, with no account's Reply-To.
    const brand =
      m.kind === 'panel_sign_in'
        ? operatorSender(deps.config.operatorBrand)
        : m.account_id
          ? await senderOf(deps.db, m.account_id)
          : undefined;
    const from = brandedFrom(deps.mail.from, brand);
    try {
      if (m.kind === 'certified') {
        // Sent as bytes built once and hashed (certified-email/deliver-certified-email.ts).
        const sent = await sendCertifiedEmail({ ...deps, mail: { ...deps.mail, from } }, m, attachments);
        await deps.db.transaction().execute(async (trx) => {
          if (await settleMessage(trx, messageId, { status: 'sent', reply: sent.response, at: deps.clock.now() })) {
            await recordCertifiedSent(trx, deps, m, sent);
          }
        });
        return;
      }
      const sent = await deps.mail.transport.send(from, {
        to: m.recipient,
        ...(brand?.email_reply_to ? { replyTo: brand.email_reply_to } : {}),
        subject: m.subject,
        text: m.body_text,
        html: m.body_html,
        attachments,
      });
      await settleMessage(deps.db, messageId, { status: 'sent', reply: sent.response, at: deps.clock.now() });
    } catch (err) {
      if (!(err instanceof MailDeliveryError)) {
        throw err;
      }
      // m.attempts counts the attempts before this one (a permanent failure and the last attempt
      // count themselves in settleMessage).
      if (!lastAttempt(err)) {
        await countAttempt(deps.db, messageId, err.reply);
        throw err; // graphile-worker retries with backoff
      }
      await fail(deps, m, { reply: err.reply, code: String(err.responseCode ?? ''), byServer: err.responseCode !== undefined });
    }
  });
}

/** The message is failed for good: settled and email_error emitted, together. */
async function fail(deps: Deps, m: OutboxMessage, why: { reply: string; code: string; byServer: boolean }): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const settled = await settleMessage(trx, m.message_id, { status: 'failed', reply: why.reply, at: deps.clock.now() });
    if (settled && m.kind === 'certified') {
      await recordCertifiedRefusal(trx, deps, m, why.reply, why.byServer);
    }
    if (settled && m.account_id && m.document_id) {
      await emitEvent(trx, deps, {
        accountId: m.account_id,
        documentId: m.document_id,
        kind: 'email_error',
        meta: { channel: 'email', recipient: m.recipient, code: why.code, reply: why.reply },
        dedupeKey: `email_error:${m.message_id}`,
      });
    }
  });
}
