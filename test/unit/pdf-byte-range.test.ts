import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkByteRange } from '../../src/pdf/pdf-revisions.js';

describe('checkByteRange', () => {
  const file = Buffer.from(`%PDF-1.7 head <${'0'.repeat(16)}> tail %%EOF`, 'latin1');
  const gapStart = file.indexOf('<');
  const gapEnd = file.indexOf('>') + 1;
  const range = [0, gapStart, gapEnd, file.length - gapEnd];

  it('gives the signed bytes as views into the file, not a copy (a 50 MB file held once more per signature)', () => {
    const check = checkByteRange(file, range);
    expect(check.coversDocument).toBe(true);
    expect(check.end).toBe(file.length);
    expect(check.signed).toHaveLength(2);
    for (const part of check.signed!) {
      expect(part.buffer).toBe(file.buffer);
    }
    const whole = Buffer.concat([file.subarray(0, gapStart), file.subarray(gapEnd)]);
    expect(Buffer.concat(check.signed!).equals(whole)).toBe(true);
    const digest = createHash('sha256');
    for (const part of check.signed!) {
      digest.update(part);
    }
    expect(digest.digest('hex')).toBe(createHash('sha256').update(whole).digest('hex'));
  });

  it('refuses ranges outside the file, odd counts and non-integers', () => {
    for (const bad of [[0, file.length + 1], [0, 1, 2], [0, 1.5], [-1, 2], []]) {
      expect(checkByteRange(file, bad).signed, JSON.stringify(bad)).toBeNull();
    }
  });
});
