// Verifying a webhook delivery from Sello on the receiving side (Standard Webhooks, "Verifying
// webhook signatures"): the signature is HMAC-SHA256 with the key inside the subscription's
// `whsec_` secret over `${webhook-id}.${webhook-timestamp}.${raw body}`; the timestamp must be
// recent, so a captured delivery cannot be replayed later. The body must be the raw bytes as
// received: parsed and serialized again, it no longer matches.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Why a delivery was refused. */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: 'missing_header' | 'bad_secret' | 'stale' | 'bad_signature',
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface WebhookVerifyOptions {
  /** The subscription's (or the account's) secret, `whsec_…`. */
  secret: string;
  /** The request headers (any case; a Headers object or a plain record, as node:http gives). */
  headers: Headers | Record<string, string | string[] | undefined>;
  /** The raw body, exactly as received. */
  body: string | Uint8Array;
  /** How far the timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock (default the system's). */
  now?: () => Date;
}

function header(headers: WebhookVerifyOptions['headers'], name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks a delivery and returns its parsed JSON body; throws WebhookVerificationError otherwise.
 * Any one of the space-separated `v1,` signatures may match (a secret being rotated sends two).
 */
export function verifyWebhook<T = unknown>(o: WebhookVerifyOptions): T {
  const id = header(o.headers, 'webhook-id');
  const timestamp = header(o.headers, 'webhook-timestamp');
  const signatures = header(o.headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError('missing_header', 'the webhook-id, webhook-timestamp and webhook-signature headers are required');
  }
  const key = Buffer.from(o.secret.startsWith('whsec_') ? o.secret.slice('whsec_'.length) : o.secret, 'base64');
  if (key.length === 0) {
    throw new WebhookVerificationError('bad_secret', 'the secret holds no key: give the whsec_… value the subscription answered');
  }
  const seconds = Number(timestamp);
  const now = (o.now?.() ?? new Date()).getTime() / 1000;
  const tolerance = o.toleranceSeconds ?? 300;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - seconds) > tolerance) {
    throw new WebhookVerificationError('stale', `the webhook-timestamp ${timestamp} is more than ${tolerance} s from now`);
  }
  const body = typeof o.body === 'string' ? Buffer.from(o.body, 'utf8') : Buffer.from(o.body);
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  const matches = signatures.split(' ').some((part) => {
    const [version, value] = part.split(',', 2);
    const given = version === 'v1' && value ? Buffer.from(value, 'base64') : Buffer.alloc(0);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) {
    throw new WebhookVerificationError('bad_signature', 'no webhook-signature matches the body with this secret');
  }
  return JSON.parse(body.toString('utf8')) as T;
}
