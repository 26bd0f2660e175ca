// Meta's WhatsApp Cloud API (POST {base}/{version}/{phone number id}/messages with a bearer token):
// business-initiated messages must be approved templates, so each kind of message names one, with
// its body parameters. The webhook's POSTs are signed with the app secret (X-Hub-Signature-256).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { MetaWhatsAppSettings } from '../config.js';
import {
  MessageDeliveryError,
  readAnswer,
  unreached,
  shortReply,
  type MessageTransport,
  type OutgoingMessage,
} from './message-transport.js';

// Meta's error codes that a later attempt may get through: throttling, rate limits, the service
// briefly unavailable (Cloud API error codes reference).
const TRANSIENT_CODES = new Set(['1', '2', '4', '80007', '130429', '131000', '131016', '131048', '131056', '133004']);

export function isTransientMetaCode(code: string): boolean {
  return TRANSIENT_CODES.has(code);
}

export function createMetaTransport(c: MetaWhatsAppSettings, o: { timeoutMs?: number } = {}): MessageTransport {
  const endpoint = `${c.baseUrl}/${c.apiVersion}/${encodeURIComponent(c.phoneNumberId)}/messages`;
  return {
    provider: 'meta',
    async send(m: OutgoingMessage) {
      const text = (v: string) => ({ type: 'text', text: v });
      const components: unknown[] = [{ type: 'body', parameters: m.params.map(text) }];
      if (m.kind === 'otp') {
        // Authentication templates carry a copy-code button that takes the code as well.
        components.push({ type: 'button', sub_type: 'url', index: '0', parameters: [text(m.params[0] ?? '')] });
      }
      const payload = {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: m.to.replace(/^\+/, ''),
        type: 'template',
        template: { name: c.templates[m.kind], language: { code: c.languages[m.language] }, components },
        // Returned in every status webhook of this message: ties it to Sello's message.
        biz_opaque_callback_data: m.messageId,
      };
      let res: Response;
      try {
        res = await fetch(endpoint, {
          method: 'POST',
          headers: { authorization: `Bearer ${c.accessToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(payload),
          signal: AbortSignal.timeout(o.timeoutMs ?? 30_000),
          redirect: 'error',
        });
      } catch (err) {
        throw unreached('Meta', err);
      }
      const raw = await readAnswer(res);
      let body: { messages?: { id?: string }[]; error?: { code?: number | string; message?: string } } = {};
      try {
        body = JSON.parse(raw);
      } catch {
        // judged by its status below
      }
      const id = body.messages?.[0]?.id;
      if (res.ok && typeof id === 'string') {
        return { providerId: id, reply: shortReply(`${res.status} ${id}`) };
      }
      const code = body.error?.code !== undefined ? String(body.error.code) : String(res.status);
      const permanent = res.status < 500 && res.status !== 429 && res.status !== 401 && res.status !== 403 && !TRANSIENT_CODES.has(code);
      throw new MessageDeliveryError(
        `Meta refused the message: ${res.status} ${body.error?.message ?? ''}`,
        code,
        shortReply(raw),
        permanent,
      );
    },
  };
}

/** X-Hub-Signature-256: `sha256=` + hex HMAC-SHA256(app secret, raw body). Compared in constant time. */
export function checkMetaSignature(appSecret: string, rawBody: Buffer, given: unknown): boolean {
  if (typeof given !== 'string' || !given.startsWith('sha256=')) {
    return false;
  }
  const expected = Buffer.from(`sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`);
  const got = Buffer.from(given);
  return got.length === expected.length && timingSafeEqual(got, expected);
}

export interface MetaStatus {
  messageId?: string;
  providerId: string;
  status: 'accepted' | 'delivered' | 'failed' | 'other';
  code: string;
  reply: string;
  transient: boolean;
}

interface MetaWebhookBody {
  entry?: { changes?: { value?: { statuses?: MetaStatusEntry[] } }[] }[];
}
interface MetaStatusEntry {
  id?: string;
  status?: string;
  biz_opaque_callback_data?: string;
  errors?: { code?: number | string; title?: string; message?: string; error_data?: { details?: string } }[];
}

/** Every message status of a webhook POST (entry[].changes[].value.statuses[]); other changes are skipped. */
export function readMetaStatuses(body: unknown): MetaStatus[] {
  const out: MetaStatus[] = [];
  for (const entry of (body as MetaWebhookBody)?.entry ?? []) {
    for (const change of entry?.changes ?? []) {
      for (const s of change?.value?.statuses ?? []) {
        if (typeof s?.id !== 'string' || typeof s.status !== 'string') {
          continue;
        }
        const err = s.errors?.[0];
        const code = err?.code !== undefined ? String(err.code) : '';
        const kind =
          s.status === 'sent'
            ? 'accepted'
            : s.status === 'delivered' || s.status === 'read'
              ? 'delivered'
              : s.status === 'failed'
                ? 'failed'
                : 'other';
        out.push({
          messageId: typeof s.biz_opaque_callback_data === 'string' ? s.biz_opaque_callback_data : undefined,
          providerId: s.id,
          status: kind,
          code,
          reply: shortReply(err ? JSON.stringify(err) : s.status),
          transient: kind === 'failed' && isTransientMetaCode(code),
        });
      }
    }
  }
  return out;
}
