// Task `send_message` (payload: jobs/payloads/send-message.ts): delivers one queued SMS or WhatsApp
// message. With no provider configured for its channel, the message stays in the outbox.
//
// Idempotent, keyed by the message id: the row is claimed (status sending) and committed before the
// provider is called, and settled with the provider's id right after it accepts. A provider's
// refusal puts the row back to queued (a transient one, retried with graphile-worker's backoff) or
// fails it for good (a permanent one, or the last attempt: *_error emitted once, with the provider's
// code). An attempt that ends without the provider's answer — a crash during the call, a timeout —
// leaves the row `sending`: the provider may have the message. The next attempt does not send it
// again until CONFIRM_WINDOW_MS has passed without a status callback naming the message (each one
// carries the message id: Twilio's callback URL, Meta's biz_opaque_callback_data); a callback that
// came meanwhile settles the row as sent. So a retry never sends twice what the provider accepted
// and reported, and a message the provider never got is not lost.
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { failMessage } from '../domain/messages/fail-message.js';
import { MessageDeliveryError } from '../notify/message-transport.js';
import {
  claimForSending,
  findChannelMessageText,
  markAccepted,
  markOutbox,
  releaseClaim,
  type ChannelMessage,
} from '../store/channel-messages-repo.js';
import { payloadTask } from './job-payload.js';
import { MESSAGE_MAX_ATTEMPTS, SEND_MESSAGE } from './payloads/send-message.js';

/** How long an interrupted send waits for the provider's callbacks before it is sent again. */
export const CONFIRM_WINDOW_MS = 10 * 60_000;

export function sendMessageTask(deps: Deps): Task {
  return payloadTask(SEND_MESSAGE, async ({ messageId }, helpers) => {
    const jobAttempt = helpers?.job?.attempts ?? 0;
    let m = await findChannelMessageText(deps, messageId);
    if (m?.status === 'sending') {
      if (!(await resolveInterrupted(deps, m))) {
        throw new Error(`message ${messageId}: an interrupted send awaits the provider's confirmation`);
      }
      m = await findChannelMessageText(deps, messageId);
    }
    if (m?.status !== 'queued') {
      return;
    }
    const transport = deps.channels?.[m.channel];
    if (!transport) {
      await markOutbox(deps.db, messageId);
      return;
    }
    if (!(await claimForSending(deps.db, messageId, { provider: transport.provider, at: deps.clock.now() }))) {
      return; // another attempt took it
    }
    try {
      const accepted = await transport.send({
        messageId,
        kind: m.kind,
        language: m.language,
        to: m.recipient,
        text: m.body_text,
        params: m.template_params,
      });
      await markAccepted(deps.db, messageId, { providerId: accepted.providerId, reply: accepted.reply, at: deps.clock.now() });
    } catch (err) {
      if (!(err instanceof MessageDeliveryError)) {
        throw err; // stays sending: judged by the next attempt
      }
      if (err.ambiguous) {
        throw err;
      }
      const last = err.permanent || Math.max(m.attempts + 1, jobAttempt) >= MESSAGE_MAX_ATTEMPTS;
      if (!last) {
        await releaseClaim(deps.db, messageId, { code: err.code, reply: err.reply });
        throw err; // graphile-worker retries with backoff
      }
      const failed = m;
      await deps.db.transaction().execute((trx) => failMessage(trx, deps, failed, { code: err.code, reply: err.reply }));
    }
  });
}

/**
 * A row left `sending`: settled as sent when a callback told its provider id, put back to queued once
 * the window has passed without one; false while it must still wait.
 */
async function resolveInterrupted(deps: Deps, m: ChannelMessage): Promise<boolean> {
  if (m.provider_message_id) {
    await markAccepted(deps.db, m.message_id, { providerId: m.provider_message_id, reply: m.reply ?? 'accepted', at: deps.clock.now() });
    return true;
  }
  const since = m.claimed_at ? new Date(m.claimed_at).getTime() : 0;
  if (deps.clock.now().getTime() - since < CONFIRM_WINDOW_MS) {
    return false;
  }
  await releaseClaim(deps.db, m.message_id, { code: '', reply: 'no confirmation from the provider: sent again' });
  return true;
}
