// SQL of the SMS and WhatsApp outbox (migration 0018). Every message carries a personal link or a
// one-time code, in its text and in its template parameters, so both are stored sealed under the
// master key (migration 0031): sealed here on the way in, opened on the way out. Rows from before
// that migration hold them in body_text/template_params (whole while waiting, secrets redacted once
// delivered).
import type { Selectable, Transaction } from 'kysely';
import type { SecretBox } from '../pki/secret-box.js';
import type { Db } from './db.js';
import type { ChannelMessagesTable, Database } from './schema.js';

type MessageRow = Selectable<ChannelMessagesTable>;

export type MessageChannel = MessageRow['channel'];
export type MessageKind = MessageRow['kind'];
export type MessageStatus = MessageRow['status'];

const COLUMNS = [
  'message_id',
  'account_id',
  'document_id',
  'signer_id',
  'channel',
  'kind',
  'language',
  'recipient',
  'status',
  'provider',
  'provider_message_id',
  'attempts',
  'claimed_at',
  'error_code',
  'reply',
  'created_at',
  'sent_at',
  'delivered_at',
  'failed_at',
] as const;

const TEXT_COLUMNS = [...COLUMNS, 'body_text', 'template_params', 'body_sealed'] as const;

export type ChannelMessage = Pick<MessageRow, (typeof COLUMNS)[number]>;

/** A message with what it says: the text and the values of the provider's approved template. */
export interface ChannelMessageText extends ChannelMessage {
  body_text: string;
  /** The values of the provider's approved template (Meta: body parameters, in order). */
  template_params: string[];
}

/** The outbox and the key its bodies are sealed under. */
export interface ChannelOutbox {
  db: Db;
  secrets: SecretBox;
}

type Q = Db | Transaction<Database>;

function opened(secrets: SecretBox, row: Pick<MessageRow, (typeof TEXT_COLUMNS)[number]>): ChannelMessageText {
  const { body_sealed, ...rest } = row;
  const body = body_sealed ? (JSON.parse(secrets.open(body_sealed)) as { text: string; params: string[] }) : undefined;
  // template_params (jsonb) holds an array of strings: what insertChannelMessage wrote before sealing.
  return { ...rest, body_text: body?.text ?? row.body_text ?? '', template_params: body?.params ?? (row.template_params as string[]) };
}

/** Inserts a message, queued (its job is added by the caller in the same transaction) or already failed. */
export async function insertChannelMessage(
  trx: Transaction<Database>,
  secrets: SecretBox,
  m: Pick<
    ChannelMessageText,
    | 'message_id'
    | 'account_id'
    | 'document_id'
    | 'signer_id'
    | 'channel'
    | 'kind'
    | 'language'
    | 'recipient'
    | 'body_text'
    | 'template_params'
  > & { created_at: Date; failed?: { code: string; reply: string } },
): Promise<void> {
  const sealed = secrets.seal(JSON.stringify({ text: m.body_text, params: m.template_params }));
  await trx
    .insertInto('channel_messages')
    .values({
      message_id: m.message_id,
      account_id: m.account_id,
      document_id: m.document_id,
      signer_id: m.signer_id,
      channel: m.channel,
      kind: m.kind,
      language: m.language,
      recipient: m.recipient,
      body_sealed: sealed,
      created_at: m.created_at,
      status: m.failed ? 'failed' : 'queued',
      error_code: m.failed?.code ?? null,
      reply: m.failed?.reply ?? null,
      failed_at: m.failed ? m.created_at : null,
    })
    .execute();
}

export async function findChannelMessage(q: Q, messageId: string, lock = false): Promise<ChannelMessage | undefined> {
  return q
    .selectFrom('channel_messages')
    .select(COLUMNS)
    .where('message_id', '=', messageId)
    .$if(lock, (qb) => qb.forUpdate())
    .executeTakeFirst();
}

export async function findByProviderId(
  trx: Transaction<Database>,
  provider: string,
  providerId: string,
): Promise<ChannelMessage | undefined> {
  return trx
    .selectFrom('channel_messages')
    .select(COLUMNS)
    .where('provider', '=', provider)
    .where('provider_message_id', '=', providerId)
    .forUpdate()
    .executeTakeFirst();
}

/** The message with its text, opened, for its delivery. */
export async function findChannelMessageText(o: ChannelOutbox, messageId: string): Promise<ChannelMessageText | undefined> {
  const row = await o.db.selectFrom('channel_messages').select(TEXT_COLUMNS).where('message_id', '=', messageId).executeTakeFirst();
  return row && opened(o.secrets, row);
}

/** The latest messages with their texts, opened, for the operator's outbox. */
export async function listChannelMessages(o: ChannelOutbox, limit: number): Promise<ChannelMessageText[]> {
  const rows = await o.db
    .selectFrom('channel_messages')
    .select(TEXT_COLUMNS)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => opened(o.secrets, row));
}

/**
 * Claims a queued message for one delivery attempt: committed before the provider is called, so a
 * crash during the call leaves it `sending` and the next attempt knows the provider may have it.
 */
export async function claimForSending(db: Db, messageId: string, o: { provider: string; at: Date }): Promise<boolean> {
  const r = await db
    .updateTable('channel_messages')
    .set((eb) => ({ status: 'sending', provider: o.provider, attempts: eb('attempts', '+', 1), claimed_at: o.at }))
    .where('message_id', '=', messageId)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Back to queued: after a failure the provider answered (it did not take the message), or a claim
 * interrupted long enough ago that the provider would have reported a message it took. A retry may send it.
 */
export async function releaseClaim(q: Q, messageId: string, why: { code: string; reply: string }): Promise<boolean> {
  const r = await q
    .updateTable('channel_messages')
    .set({ status: 'queued', error_code: why.code, reply: why.reply, provider_message_id: null })
    .where('message_id', '=', messageId)
    .where('status', 'in', ['sending', 'sent'])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The provider accepted the message. A status callback may have come first: delivered or failed stay. */
export async function markAccepted(db: Q, messageId: string, o: { providerId: string; reply: string; at: Date }): Promise<void> {
  await db
    .updateTable('channel_messages')
    .set((eb) => ({
      status: eb
        .case()
        .when('status', 'in', ['queued', 'sending'])
        .then('sent' as const)
        .else(eb.ref('status'))
        .end(),
      provider_message_id: o.providerId,
      reply: eb.fn.coalesce('reply', eb.val(o.reply)),
      sent_at: eb.fn.coalesce('sent_at', eb.val(o.at)),
    }))
    .where('message_id', '=', messageId)
    .execute();
}

/** No provider configured: the message stays readable in the outbox. */
export async function markOutbox(db: Db, messageId: string): Promise<boolean> {
  const r = await db
    .updateTable('channel_messages')
    .set({ status: 'outbox' })
    .where('message_id', '=', messageId)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Fails the message for good; false when it had already failed (the event is emitted once). */
export async function markFailed(q: Q, messageId: string, why: { code: string; reply: string; at: Date }): Promise<boolean> {
  const r = await q
    .updateTable('channel_messages')
    .set({ status: 'failed', error_code: why.code, reply: why.reply, failed_at: why.at })
    .where('message_id', '=', messageId)
    .where('status', '<>', 'failed')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function markDelivered(q: Q, messageId: string, at: Date): Promise<void> {
  await q
    .updateTable('channel_messages')
    .set((eb) => ({ status: 'delivered', delivered_at: eb.fn.coalesce('delivered_at', eb.val(at)) }))
    .where('message_id', '=', messageId)
    .where('status', 'in', ['sending', 'sent'])
    .execute();
}

/** The provider's id learnt from a callback that came before the send's answer was recorded. */
export async function recordProviderId(q: Q, messageId: string, provider: string, providerId: string): Promise<void> {
  await q
    .updateTable('channel_messages')
    .set({ provider, provider_message_id: providerId })
    .where('message_id', '=', messageId)
    .where('provider_message_id', 'is', null)
    .execute();
}

/** The latest message to each signer of a document, for the signer listings. */
export async function latestMessagesOf(db: Db, documentIds: string[]): Promise<ChannelMessage[]> {
  if (documentIds.length === 0) {
    return [];
  }
  return db
    .selectFrom('channel_messages')
    .distinctOn(['document_id', 'signer_id'])
    .select(COLUMNS)
    .where('document_id', 'in', documentIds)
    .orderBy('document_id')
    .orderBy('signer_id')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}
