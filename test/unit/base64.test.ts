import { describe, expect, it } from 'vitest';
import { decodeBase64 } from '../../src/domain/base64.js';
import { AppError } from '../../src/domain/errors.js';

const opts = { field: 'f', maxBytes: 1024 };

describe('decodeBase64', () => {
  it('decodes standard Base64 with and without padding, base64url, data: URIs and line breaks', () => {
    expect(decodeBase64('aGVsbG8=', opts).toString()).toBe('hello');
    expect(decodeBase64('aGVsbG8h', opts).toString()).toBe('hello!');
    expect(decodeBase64('aGk', opts).toString()).toBe('hi');
    expect(decodeBase64('-_8', opts)).toEqual(Buffer.from([0xfb, 0xff]));
    expect(decodeBase64('data:application/pdf;base64,aGVs\nbG8=', opts).toString()).toBe('hello');
  });
  it('refuses padding in the middle, stray characters and empty input, naming the field', () => {
    for (const bad of ['aG=sbG8=', 'aGVsbG8===', 'aGVs*G8=', '', '====']) {
      expect(() => decodeBase64(bad, opts), bad).toThrow(AppError);
    }
    expect(() => decodeBase64('%%%%', opts)).toThrow(/^f: not valid Base64/);
  });
  it('decodes into shared memory when asked (a file for the PDF jail), the same bytes and the same checks', () => {
    const shared = decodeBase64('data:application/pdf;base64,aGVs\nbG8h', { ...opts, shared: true });
    expect(shared.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(shared.toString()).toBe('hello!');
    expect(decodeBase64('-_8', { ...opts, shared: true })).toEqual(Buffer.from([0xfb, 0xff]));
    expect(() => decodeBase64('aG=sbG8=', { ...opts, shared: true })).toThrow(AppError);
    expect(decodeBase64('aGVsbG8h', opts).buffer).not.toBeInstanceOf(SharedArrayBuffer);
  });
  it('refuses more than the limit before decoding', () => {
    expect(() => decodeBase64('A'.repeat(2000), opts)).toThrow(/larger than the limit/);
  });
});
