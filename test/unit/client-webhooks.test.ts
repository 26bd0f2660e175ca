// The client's webhook check against the Standard Webhooks example and the service's own signing.
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../src/client/index.js';
import { newWebhookSecret, webhookHeaders } from '../../src/domain/events/webhook-signature.js';

const EXAMPLE = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  headers: {
    'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    'webhook-timestamp': '1614265330',
    'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  },
  body: '{"test": 2432232314}',
};
const at = (seconds: number) => () => new Date(seconds * 1000);
const reason = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err instanceof WebhookVerificationError ? err.reason : String(err);
  }
  return 'accepted';
};

describe('verifyWebhook', () => {
  it('accepts the reference example at its time, and returns the parsed body', () => {
    expect(verifyWebhook({ ...EXAMPLE, now: at(1614265330) })).toEqual({ test: 2432232314 });
  });

  it('accepts what the service signs, with headers in any case and as a Headers object, and a second signature', () => {
    const secret = newWebhookSecret();
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ notification_type: 'document_completed', meta: { ok: true } });
    const h = webhookHeaders(secret, 'msg_1', now, body);
    expect(verifyWebhook({ secret, headers: h, body })).toMatchObject({ notification_type: 'document_completed' });
    const upper = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook({ secret, headers: upper, body: Buffer.from(body) })).toBeTruthy();
    const rotated = { ...h, 'webhook-signature': `v1,AAAA ${h['webhook-signature']}` };
    expect(verifyWebhook({ secret, headers: new Headers(rotated), body })).toBeTruthy();
  });

  it('refuses a changed body, another secret, a stale or future timestamp, and missing headers, each by reason', () => {
    const now = at(1614265330);
    expect(reason(() => verifyWebhook({ ...EXAMPLE, body: '{"test": 2432232315}', now }))).toBe('bad_signature');
    expect(reason(() => verifyWebhook({ ...EXAMPLE, secret: newWebhookSecret(), now }))).toBe('bad_signature');
    expect(reason(() => verifyWebhook({ ...EXAMPLE, now: at(1614265330 + 301) }))).toBe('stale');
    expect(reason(() => verifyWebhook({ ...EXAMPLE, now: at(1614265330 - 301) }))).toBe('stale');
    expect(reason(() => verifyWebhook({ ...EXAMPLE, now: at(1614265330 + 3600), toleranceSeconds: 7200 }))).toBe('accepted');
    const { 'webhook-signature': _, ...unsigned } = EXAMPLE.headers;
    expect(reason(() => verifyWebhook({ ...EXAMPLE, headers: unsigned, now }))).toBe('missing_header');
    expect(reason(() => verifyWebhook({ ...EXAMPLE, secret: 'whsec_', now }))).toBe('bad_secret');
  });
});
