// Queues an SMS or WhatsApp message: its `messages` piece, its outbox row and its delivery job commit
// with the change that causes it (an invitation with the flow that starts, a code with the code), or
// not at all. Each message takes one piece (decisions.md "Accounts and packages"), whatever happens
// to it afterwards; a retry of the same message takes none.
//
// No piece left: a signer waiting for a code gets 402 PACKAGE_EXHAUSTED (`refuse`: nothing is done,
// the code is not replaced). An invitation or reminder is never the reason an action fails — a
// document created, a signature that moves an ordered flow, a background reminder — so it is
// recorded (`record`) as a failed message with the code PACKAGE_EXHAUSTED, and the channel's
// *_error event tells the integrator, who can still hand the signer their signer_url.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { emitEvent } from '../events/emit-event.js';
import { newPublicId } from '../ids.js';
import { consumePiece } from '../packages/consume-piece.js';
import type { RenderedText, TextKind } from '../../notify/message-templates.js';
import { addSendMessageJob } from '../../jobs/payloads/send-message.js';
import { insertChannelMessage, type MessageChannel } from '../../store/channel-messages-repo.js';
import type { Database } from '../../store/schema.js';

export const EXHAUSTED_CODE = 'PACKAGE_EXHAUSTED';

export interface QueuedMessage {
  messageId: string;
  /** False when no piece was left and the message was recorded as failed instead. */
  queued: boolean;
}

export async function queueMessage(
  trx: Transaction<Database>,
  deps: Pick<Deps, 'clock' | 'secrets'>,
  m: {
    accountId: string;
    documentId: string;
    /** Public signer_id of the document signer. */
    signerId: string;
    channel: MessageChannel;
    kind: TextKind;
    language: 'es' | 'en';
    to: string;
    rendered: RenderedText;
    onExhausted: 'refuse' | 'record';
  },
): Promise<QueuedMessage> {
  const now = deps.clock.now();
  const messageId = newPublicId();
  const row = {
    message_id: messageId,
    account_id: m.accountId,
    document_id: m.documentId,
    signer_id: m.signerId,
    channel: m.channel,
    kind: m.kind,
    language: m.language,
    recipient: m.to,
    body_text: m.rendered.text,
    template_params: m.rendered.params,
    created_at: now,
  };
  try {
    await consumePiece(trx, { accountId: m.accountId, kind: 'messages', channel: m.channel, documentId: m.documentId, at: now });
  } catch (err) {
    // consumePiece refuses before it writes anything, so the transaction goes on unharmed.
    if (m.onExhausted === 'refuse' || !(err instanceof AppError) || err.code !== 'PACKAGE_EXHAUSTED') {
      throw err;
    }
    const reply = "no messages left in the account's packages: the message was not sent";
    await insertChannelMessage(trx, deps.secrets, { ...row, failed: { code: EXHAUSTED_CODE, reply } });
    await emitEvent(trx, deps, {
      accountId: m.accountId,
      documentId: m.documentId,
      kind: m.channel === 'sms' ? 'sms_error' : 'whatsapp_error',
      meta: { channel: m.channel, recipient: m.to, code: EXHAUSTED_CODE, reply },
      dedupeKey: `${m.channel}_error:${messageId}`,
    });
    return { messageId, queued: false };
  }
  await insertChannelMessage(trx, deps.secrets, row);
  await addSendMessageJob(trx, { messageId });
  return { messageId, queued: true };
}

/** The channel of an authority whose signers are reached by phone, or undefined. */
export function phoneChannelOf(authority: string): MessageChannel | undefined {
  return authority === 'SMS' ? 'sms' : authority === 'WHATSAPP' ? 'whatsapp' : undefined;
}
