// A message that cannot be delivered: settled as failed, the channel's event emitted with the
// provider's code and reply, and the document's history told — in one transaction, once per message
// (the row moves to failed only once; the event is also keyed by the message id).
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { emitEvent } from '../events/emit-event.js';
import { appendHistory } from '../history/append-history.js';
import { markFailed, type ChannelMessage } from '../../store/channel-messages-repo.js';
import type { Database } from '../../store/schema.js';

export async function failMessage(
  trx: Transaction<Database>,
  deps: Pick<Deps, 'clock'>,
  m: ChannelMessage,
  why: { code: string; reply: string },
): Promise<boolean> {
  const at = deps.clock.now();
  if (!(await markFailed(trx, m.message_id, { ...why, at }))) {
    return false;
  }
  if (m.account_id && m.document_id) {
    await emitEvent(trx, deps, {
      accountId: m.account_id,
      documentId: m.document_id,
      kind: m.channel === 'sms' ? 'sms_error' : 'whatsapp_error',
      meta: { channel: m.channel, recipient: m.recipient, code: why.code, reply: why.reply },
      dedupeKey: `${m.channel}_error:${m.message_id}`,
    });
    await appendHistory(trx, {
      documentId: m.document_id,
      at,
      action: 'message_failed',
      actor: 'system',
      details: { signer_id: m.signer_id, message_id: m.message_id, channel: m.channel, kind: m.kind, code: why.code },
    });
  }
  return true;
}
