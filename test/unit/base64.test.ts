import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { decodeBase64, decodeBase64Ascii } from '../../src/domain/base64.js';
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

describe('decodeBase64Ascii: the text as its bytes, decoded a slice at a time', () => {
  /** What decodeBase64 answers for `text`: the bytes, or the error's code and message. */
  const outcome = (decode: () => Buffer) => {
    try {
      const b = decode();
      return { bytes: b.toString('hex'), length: b.length, shared: b.buffer instanceof SharedArrayBuffer };
    } catch (err) {
      return { code: (err as { code?: string }).code, message: (err as Error).message };
    }
  };
  const file = randomBytes(100);
  const texts = [
    file.toString('base64'),
    file.subarray(1).toString('base64'), // one '='
    file.subarray(2).toString('base64'), // two
    file.toString('base64url'),
    file.subarray(1).toString('base64url'), // length % 4 == 3
    `${file.toString('base64url')}A`, // length % 4 == 1
    `data:application/pdf;base64,${file.toString('base64')}`,
    `DATA:application/pdf;base64,${file.toString('base64')}`,
    `data:application/pdf;base64,${file.toString('base64').slice(0, 40)}\n${file.toString('base64').slice(40)}`,
    `${file.toString('base64').slice(0, 40)} ${file.toString('base64').slice(40)}`,
    `data:${'a'.repeat(5000)};base64,${file.toString('base64')}`, // a prefix longer than the first look
    `data:${'a'.repeat(5000)}`,
    `data:application/pdf;base64,`,
    'aG=sbG8=',
    'aGVsbG8===',
    'aGVs*G8=',
    `${file.toString('base64').slice(0, 64)}*${file.toString('base64').slice(65)}`, // a stray character in a later slice
    `${file.toString('base64').slice(0, 64)}-${file.toString('base64').slice(65)}`, // both alphabets mixed
    '====',
    '',
    'A'.repeat(2000),
    'A'.repeat(1368), // decodes to 1026 bytes: over the limit only once decoded
  ];
  it('answers exactly what decodeBase64 answers: the same bytes, the same errors', () => {
    for (const text of texts) {
      for (const shared of [false, true]) {
        const o = { ...opts, shared, invalidCode: 'PDF_INVALID' as const };
        const expected = outcome(() => decodeBase64(text, o));
        for (const slice of [4, 8, 64, 1 << 20]) {
          expect(
            outcome(() => decodeBase64Ascii(Buffer.from(text, 'latin1'), o, slice)),
            `${text.slice(0, 40)} / ${slice}`,
          ).toEqual(expected);
        }
      }
    }
  });
  it('reads the bytes where they lie: a view into a larger buffer', () => {
    const body = Buffer.from(`{"b64_doc":"${file.toString('base64')}"}`, 'latin1');
    const view = body.subarray(12, body.length - 2);
    expect(decodeBase64Ascii(view, { ...opts, shared: true }, 8).equals(file)).toBe(true);
  });
});
