import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/pki/secret-box.js';

describe('secret box', () => {
  it('round-trips and never stores the plaintext', () => {
    const box = createSecretBox(randomBytes(32));
    const sealed = box.seal('my-api-key');
    expect(sealed.includes(Buffer.from('my-api-key'))).toBe(false);
    expect(box.open(sealed)).toBe('my-api-key');
  });
  it('refuses a tampered value and a different master key', () => {
    const box = createSecretBox(randomBytes(32));
    const sealed = box.seal('secret');
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(() => box.open(tampered)).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed)).toThrow();
  });
});
