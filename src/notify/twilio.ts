// Twilio's Messages API (POST /2010-04-01/Accounts/{sid}/Messages.json, HTTP basic auth with the
// account SID and auth token), for SMS and for WhatsApp through Twilio, and the check of its status
// callbacks' X-Twilio-Signature. Plain fetch: the API is a form POST (DESIGN.md).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TwilioSettings } from '../config.js';
import {
  MessageDeliveryError,
  readAnswer,
  unreached,
  shortReply,
  type MessageTransport,
  type OutgoingMessage,
} from './message-transport.js';

// Twilio's error codes that a later attempt may get through: rate limits and queue overflow.
const TRANSIENT_CODES = new Set(['20429', '30001', '30022']);

export function createTwilioTransport(
  t: TwilioSettings,
  o: { channel: 'sms' | 'whatsapp'; statusCallback: (messageId: string) => string; timeoutMs?: number },
): MessageTransport {
  const endpoint = `${t.baseUrl}/2010-04-01/Accounts/${encodeURIComponent(t.accountSid)}/Messages.json`;
  const auth = `Basic ${Buffer.from(`${t.accountSid}:${t.authToken}`).toString('base64')}`;
  return {
    provider: 'twilio',
    async send(m: OutgoingMessage) {
      const form = new URLSearchParams();
      if (o.channel === 'whatsapp') {
        form.set('To', `whatsapp:${m.to}`);
        form.set('From', `whatsapp:${t.whatsappFrom}`);
        const content = t.whatsappContent[m.kind];
        if (content) {
          form.set('ContentSid', content);
          form.set('ContentVariables', JSON.stringify(Object.fromEntries(m.params.map((v, i) => [String(i + 1), v]))));
        } else {
          form.set('Body', m.text);
        }
      } else {
        form.set('To', m.to);
        if (t.messagingServiceSid) {
          form.set('MessagingServiceSid', t.messagingServiceSid);
        } else {
          form.set('From', t.smsFrom ?? '');
        }
        form.set('Body', m.text);
      }
      // The callback URL names Sello's message: a callback that comes before the send's answer is
      // recorded still finds its message.
      form.set('StatusCallback', o.statusCallback(m.messageId));
      let res: Response;
      try {
        res = await fetch(endpoint, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: form.toString(),
          signal: AbortSignal.timeout(o.timeoutMs ?? 30_000),
          redirect: 'error',
        });
      } catch (err) {
        throw unreached('Twilio', err);
      }
      const text = await readAnswer(res);
      let body: { sid?: string; code?: number | string; message?: string; status?: string } = {};
      try {
        body = JSON.parse(text);
      } catch {
        // a proxy's or an outage page: judged by its status below
      }
      if (res.ok && typeof body.sid === 'string') {
        return { providerId: body.sid, reply: shortReply(`${res.status} ${body.status ?? ''} ${body.sid}`.trim()) };
      }
      const code = body.code !== undefined ? String(body.code) : String(res.status);
      // 429 and 5xx are Twilio's to retry; 401/403 are the operator's credentials, which can be fixed
      // while the message waits; any other 4xx is about this message and will not change.
      const permanent = res.status < 500 && res.status !== 429 && res.status !== 401 && res.status !== 403 && !TRANSIENT_CODES.has(code);
      throw new MessageDeliveryError(`Twilio refused the message: ${res.status} ${body.message ?? ''}`, code, shortReply(text), permanent);
    },
  };
}

/**
 * X-Twilio-Signature: Base64(HMAC-SHA1(auth token, full URL + every POST parameter, sorted by name,
 * as name followed by value)). Compared in constant time.
 */
export function twilioSignature(authToken: string, url: string, params: Record<string, string | string[]>): string {
  const data = Object.keys(params)
    .sort()
    .map((k) => {
      const v = params[k];
      return Array.isArray(v)
        ? [...v]
            .sort()
            .map((x) => k + x)
            .join('')
        : k + v;
    })
    .join('');
  return createHmac('sha1', authToken)
    .update(url + data, 'utf8')
    .digest('base64');
}

export function checkTwilioSignature(authToken: string, url: string, params: Record<string, string | string[]>, given: unknown): boolean {
  if (typeof given !== 'string' || given === '') {
    return false;
  }
  const expected = Buffer.from(twilioSignature(authToken, url, params));
  const got = Buffer.from(given);
  return got.length === expected.length && timingSafeEqual(got, expected);
}

/** Whether a callback's ErrorCode is one Twilio documents as passing (the carrier busy, a queue full). */
export function isTransientTwilioCode(code: string): boolean {
  return TRANSIENT_CODES.has(code) || code === '30017';
}

/** A provider-neutral reading of a status callback (domain/messages/record-delivery-status.ts). */
export interface TwilioStatus {
  providerId: string;
  status: 'accepted' | 'delivered' | 'failed' | 'other';
  code: string;
  reply: string;
  transient: boolean;
}

/** Reads Twilio's status callback parameters (MessageSid, MessageStatus, ErrorCode, ErrorMessage). */
export function readTwilioStatus(p: Record<string, string>): TwilioStatus | undefined {
  const sid = p.MessageSid ?? p.SmsSid;
  const status = p.MessageStatus ?? p.SmsStatus;
  if (!sid || !status) {
    return undefined;
  }
  const code = p.ErrorCode ?? '';
  const kind = ['queued', 'accepted', 'scheduled', 'sending', 'sent'].includes(status)
    ? 'accepted'
    : ['delivered', 'read'].includes(status)
      ? 'delivered'
      : ['undelivered', 'failed', 'canceled'].includes(status)
        ? 'failed'
        : 'other';
  const reply = [status, code, p.ErrorMessage].filter(Boolean).join(' ');
  return { providerId: sid, status: kind, code, reply, transient: kind === 'failed' && isTransientTwilioCode(code) };
}
