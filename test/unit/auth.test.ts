import { describe, expect, it } from 'vitest';
import { hmac, parseAuthorization, signatureMatches } from '../../src/http/auth.js';

describe('parseAuthorization', () => {
  it('accepts a configured scheme word in any case', () => {
    expect(parseAuthorization('SVC abc:AAAA', ['svc'])?.webId).toBe('abc');
    expect(parseAuthorization('Svc abc:AAAA', ['svc', 'other'])?.webId).toBe('abc');
  });
  it('refuses an unknown scheme, a missing colon, or a signature that is not Base64', () => {
    expect(parseAuthorization('Bearer abc:AAAA', ['svc'])).toBeUndefined();
    expect(parseAuthorization('svc abcAAAA', ['svc'])).toBeUndefined();
    expect(parseAuthorization('svc abc:not base64!', ['svc'])).toBeUndefined();
    expect(parseAuthorization(undefined, ['svc'])).toBeUndefined();
  });
});

describe('signatureMatches', () => {
  const key = 'k'.repeat(43);
  it('matches any candidate under any active key', () => {
    expect(signatureMatches(hmac(key, 'b'), ['other', key], ['a', 'b'])).toBe(true);
  });
  it('refuses a signature made with a key that is not active', () => {
    expect(signatureMatches(hmac('old-key', 'a'), [key], ['a'])).toBe(false);
  });
  it('refuses when there is no key at all, even for a signature made with an empty key', () => {
    expect(signatureMatches(hmac('', 'a'), [], ['a'])).toBe(false);
  });
  it('refuses a truncated signature', () => {
    expect(signatureMatches(hmac(key, 'a').subarray(0, 31), [key], ['a'])).toBe(false);
  });
});
