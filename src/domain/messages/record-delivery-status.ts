// A provider's status callback, its signature already checked by the route: the message is found by
// Sello's message id (carried in Twilio's callback URL and in Meta's biz_opaque_callback_data) or by
// the provider's id, and moved on. A permanent failure fails it once (failMessage: *_error and the
// history); a transient one (the carrier busy, a rate limit) sends it again with backoff, without
// another piece, until MESSAGE_MAX_ATTEMPTS. Reports about an earlier attempt of a message sent
// again, about unknown messages, or repeated, change nothing.
import type { Deps } from '../deps.js';
import { addSendMessageJob, MESSAGE_MAX_ATTEMPTS } from '../../jobs/payloads/send-message.js';
import {
  findByProviderId,
  findChannelMessage,
  markAccepted,
  markDelivered,
  recordProviderId,
  releaseClaim,
} from '../../store/channel-messages-repo.js';
import { failMessage } from './fail-message.js';

export interface StatusReport {
  provider: 'twilio' | 'meta';
  /** Sello's message id, when the callback carries it. */
  messageId?: string;
  providerId: string;
  status: 'accepted' | 'delivered' | 'failed' | 'other';
  /** The provider's error code of a failure. */
  code: string;
  reply: string;
  /** A failure a later attempt may get through. */
  transient: boolean;
}

/** Seconds before a message a provider could not deliver for now is sent again: 1, 2, 4... minutes. */
function backoffMs(attempts: number): number {
  return 60_000 * 2 ** Math.max(0, Math.min(attempts - 1, 6));
}

export async function recordDeliveryStatus(deps: Pick<Deps, 'db' | 'clock'>, r: StatusReport): Promise<'applied' | 'ignored'> {
  return deps.db.transaction().execute(async (trx) => {
    const m =
      (r.messageId ? await findChannelMessage(trx, r.messageId, true) : undefined) ??
      (await findByProviderId(trx, r.provider, r.providerId));
    if (!m || (m.provider && m.provider !== r.provider)) {
      return 'ignored';
    }
    if (m.provider_message_id && m.provider_message_id !== r.providerId) {
      return 'ignored'; // about an earlier attempt of a message sent again
    }
    if (!m.provider_message_id && (m.status === 'sending' || m.status === 'sent')) {
      await recordProviderId(trx, m.message_id, r.provider, r.providerId);
    }
    const now = deps.clock.now();
    switch (r.status) {
      case 'accepted':
        if (m.status === 'sending') {
          await markAccepted(trx, m.message_id, { providerId: r.providerId, reply: r.reply, at: now });
        }
        return 'applied';
      case 'delivered':
        await markDelivered(trx, m.message_id, now);
        return 'applied';
      case 'failed':
        if (m.status === 'failed' || m.status === 'delivered') {
          return 'ignored';
        }
        if (r.transient && m.attempts < MESSAGE_MAX_ATTEMPTS && (await releaseClaim(trx, m.message_id, { code: r.code, reply: r.reply }))) {
          await addSendMessageJob(trx, { messageId: m.message_id }, new Date(now.getTime() + backoffMs(m.attempts)));
          return 'applied';
        }
        await failMessage(trx, deps, m, { code: r.code, reply: r.reply });
        return 'applied';
      default:
        return 'ignored';
    }
  });
}
