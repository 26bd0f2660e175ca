// Standard Webhooks signing against the example of the specification's reference libraries.
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, webhookHeaders, webhookKey } from '../../src/domain/events/webhook-signature.js';

describe('webhookHeaders', () => {
  it('signs as the Standard Webhooks reference libraries do', () => {
    const h = webhookHeaders('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(h).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('issues whsec_ secrets of 32 random bytes', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhookKey(a)).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(a);
  });
});
