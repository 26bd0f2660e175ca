// Standard Webhooks signing (https://www.standardwebhooks.com, "Signature scheme"):
//   webhook-signature: v1,<Base64(HMAC-SHA256(key, `${webhook-id}.${webhook-timestamp}.${body}`))>
// where the key is the Base64-decoded part of the secret after its "whsec_" prefix.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A fresh secret: "whsec_" + Base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The HMAC key of a secret: the bytes its Base64 part decodes to. */
export function webhookKey(secret: string): Buffer {
  const b64 = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  const key = Buffer.from(b64, 'base64');
  if (key.length === 0) {
    throw new Error('webhook secret: empty key');
  }
  return key;
}

/** The headers that sign one delivery attempt of `body` (sent byte for byte as given). */
export function webhookHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const signature = createHmac('sha256', webhookKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}
