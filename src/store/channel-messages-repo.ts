// SQL of the SMS and WhatsApp outbox (migration 0018). Every message carries a personal link or a
// one-time code, in its text and in its template parameters, so both are stored sealed under the
// master key (migration 0031): sealed here on the way in, opened on the way out. Rows from before
// that migration hold them in body_text/template_params (whole while waiting, secrets redacted once
// delivered).
import { sql, type Transaction } from 'kysely';
import type { SecretBox } from '../pki/secret-box.js';
import type { Db } from './db.js';
import type { Database } from './schema.js';

export type MessageChannel = 'sms' | 'whatsapp';
export type MessageKind = 'invitation' | 'reminder' | 'otp';
export type MessageStatus = 'queued' | 'sending' | 'sent' | 'delivered' | 'outbox' | 'failed';

export interface ChannelMessage {
  message_id: string;
  account_id: string | null;
  document_id: string | null;
  signer_id: string | null;
  channel: MessageChannel;
  kind: MessageKind;
  language: 'es' | 'en';
  recipient: string;
  status: MessageStatus;
  provider: string | null;
  provider_message_id: string | null;
  attempts: number;
  claimed_at: Date | null;
  error_code: string | null;
  reply: string | null;
  created_at: Date;
  sent_at: Date | null;
  delivered_at: Date | null;
  failed_at: Date | null;
}

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

const COLUMNS = sql`message_id, account_id::text as account_id, document_id::text as document_id, signer_id, channel, kind, language,
  recipient, status, provider, provider_message_id, attempts, claimed_at, error_code, reply, created_at, sent_at, delivered_at, failed_at`;

const TEXT_COLUMNS = sql`${COLUMNS}, body_text, template_params, body_sealed`;

type StoredText = ChannelMessage & { body_text: string | null; template_params: string[]; body_sealed: Buffer | null };

function opened(secrets: SecretBox, row: StoredText): ChannelMessageText {
  const { body_sealed, ...rest } = row;
  const body = body_sealed ? (JSON.parse(secrets.open(body_sealed)) as { text: string; params: string[] }) : undefined;
  return { ...rest, body_text: body?.text ?? row.body_text ?? '', template_params: body?.params ?? row.template_params };
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
  await sql`insert into channel_messages (message_id, account_id, document_id, signer_id, channel, kind, language, recipient, body_sealed,
              created_at, status, error_code, reply, failed_at)
            values (${m.message_id}, ${m.account_id}, ${m.document_id}, ${m.signer_id}, ${m.channel}, ${m.kind}, ${m.language},
                    ${m.recipient}, ${sealed}, ${m.created_at},
                    ${m.failed ? 'failed' : 'queued'}, ${m.failed?.code ?? null}, ${m.failed?.reply ?? null},
                    ${m.failed ? m.created_at : null})`.execute(trx);
}

export async function findChannelMessage(q: Q, messageId: string, lock = false): Promise<ChannelMessage | undefined> {
  const r = lock
    ? await sql<ChannelMessage>`select ${COLUMNS} from channel_messages where message_id = ${messageId} for update`.execute(q)
    : await sql<ChannelMessage>`select ${COLUMNS} from channel_messages where message_id = ${messageId}`.execute(q);
  return r.rows[0];
}

export async function findByProviderId(
  trx: Transaction<Database>,
  provider: string,
  providerId: string,
): Promise<ChannelMessage | undefined> {
  const r = await sql<ChannelMessage>`select ${COLUMNS} from channel_messages
                                      where provider = ${provider} and provider_message_id = ${providerId} for update`.execute(trx);
  return r.rows[0];
}

/** The message with its text, opened, for its delivery. */
export async function findChannelMessageText(o: ChannelOutbox, messageId: string): Promise<ChannelMessageText | undefined> {
  const r = await sql<StoredText>`select ${TEXT_COLUMNS} from channel_messages where message_id = ${messageId}`.execute(o.db);
  return r.rows[0] && opened(o.secrets, r.rows[0]);
}

/** The latest messages with their texts, opened, for the operator's outbox. */
export async function listChannelMessages(o: ChannelOutbox, limit: number): Promise<ChannelMessageText[]> {
  const r = await sql<StoredText>`select ${TEXT_COLUMNS} from channel_messages order by created_at desc, id desc limit ${limit}`.execute(
    o.db,
  );
  return r.rows.map((row) => opened(o.secrets, row));
}

/**
 * Claims a queued message for one delivery attempt: committed before the provider is called, so a
 * crash during the call leaves it `sending` and the next attempt knows the provider may have it.
 */
export async function claimForSending(db: Db, messageId: string, o: { provider: string; at: Date }): Promise<boolean> {
  const r =
    await sql`update channel_messages set status = 'sending', provider = ${o.provider}, attempts = attempts + 1, claimed_at = ${o.at}
                      where message_id = ${messageId} and status = 'queued'`.execute(db);
  return Number(r.numAffectedRows ?? 0) === 1;
}

/**
 * Back to queued: after a failure the provider answered (it did not take the message), or a claim
 * interrupted long enough ago that the provider would have reported a message it took. A retry may send it.
 */
export async function releaseClaim(q: Q, messageId: string, why: { code: string; reply: string }): Promise<boolean> {
  const r = await sql`update channel_messages set status = 'queued', error_code = ${why.code}, reply = ${why.reply},
                        provider_message_id = null
                      where message_id = ${messageId} and status in ('sending', 'sent')`.execute(q);
  return Number(r.numAffectedRows ?? 0) === 1;
}

/** The provider accepted the message. A status callback may have come first: delivered or failed stay. */
export async function markAccepted(db: Q, messageId: string, o: { providerId: string; reply: string; at: Date }): Promise<void> {
  await sql`update channel_messages set status = case when status in ('queued', 'sending') then 'sent' else status end,
              provider_message_id = ${o.providerId}, reply = coalesce(reply, ${o.reply}), sent_at = coalesce(sent_at, ${o.at})
            where message_id = ${messageId}`.execute(db);
}

/** No provider configured: the message stays readable in the outbox. */
export async function markOutbox(db: Db, messageId: string): Promise<boolean> {
  const r = await sql`update channel_messages set status = 'outbox' where message_id = ${messageId} and status = 'queued'`.execute(db);
  return Number(r.numAffectedRows ?? 0) === 1;
}

/** Fails the message for good; false when it had already failed (the event is emitted once). */
export async function markFailed(q: Q, messageId: string, why: { code: string; reply: string; at: Date }): Promise<boolean> {
  const r = await sql`update channel_messages set status = 'failed', error_code = ${why.code}, reply = ${why.reply}, failed_at = ${why.at}
                      where message_id = ${messageId} and status <> 'failed'`.execute(q);
  return Number(r.numAffectedRows ?? 0) === 1;
}

export async function markDelivered(q: Q, messageId: string, at: Date): Promise<void> {
  await sql`update channel_messages set status = 'delivered', delivered_at = coalesce(delivered_at, ${at})
            where message_id = ${messageId} and status in ('sending', 'sent')`.execute(q);
}

/** The provider's id learnt from a callback that came before the send's answer was recorded. */
export async function recordProviderId(q: Q, messageId: string, provider: string, providerId: string): Promise<void> {
  await sql`update channel_messages set provider = ${provider}, provider_message_id = ${providerId}
            where message_id = ${messageId} and provider_message_id is null`.execute(q);
}

/** The latest message to each signer of a document, for the signer listings. */
export async function latestMessagesOf(db: Db, documentIds: string[]): Promise<ChannelMessage[]> {
  if (documentIds.length === 0) {
    return [];
  }
  const r = await sql<ChannelMessage>`select distinct on (document_id, signer_id) ${COLUMNS} from channel_messages
                                      where document_id = any(${documentIds}::bigint[])
                                      order by document_id, signer_id, created_at desc, id desc`.execute(db);
  return r.rows;
}
