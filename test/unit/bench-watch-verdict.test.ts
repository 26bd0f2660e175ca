// The benchmark watch's verdict: the median of the per-pair ratios against main's ratio times the
// margin, so that one wild pair on a busy machine decides nothing, and a ratio doubled by a slower
// change fails; no measurement at all never passes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Baseline, judge, MARGIN, median, readBaseline } from '../../bench/watch-verdict.js';

const baseline = (creation: number, signing: number): Baseline => ({
  measured: { date: 'd', commit: 'c', machine: 'm', load: 'l', runs: 'r' },
  checks: { creation: { ratio: creation, what: '' }, signing: { ratio: signing, what: '' } },
});

describe('median', () => {
  it('is the middle of the sorted values, or the mean of the two middle ones', () => {
    expect(median([9, 1, 5])).toBe(5);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe('judge', () => {
  it('passes up to main times the margin and fails beyond it', () => {
    const b = baseline(4, 15);
    expect(judge('creation', [4, 4 * MARGIN, 3], b).passed).toBe(true);
    expect(judge('creation', [4 * MARGIN + 0.01, 9, 3], b).passed).toBe(false);
    expect(judge('creation', [4 * MARGIN + 0.01, 9, 3], b).line).toMatch(
      /^creation ×6\.41 \(median of 3 pairs; main ×4\.00, limit ×6\.40 = ×1\.6 main\): FAIL$/,
    );
  });

  it('a change that doubles the cost, and so the ratio, fails', () => {
    expect(judge('signing', [30, 31, 29], baseline(4, 15)).passed).toBe(false);
    expect(judge('creation', [8, 8, 8], baseline(4, 15)).passed).toBe(false);
  });

  it('one wild pair does not move the verdict', () => {
    expect(judge('signing', [15, 16, 14, 200, 15], baseline(4, 15)).passed).toBe(true);
    expect(judge('signing', [31, 30, 0.5, 29, 32], baseline(4, 15)).passed).toBe(false);
  });

  it('no pairs, or a ratio that is not a number, fails', () => {
    expect(judge('creation', [], baseline(4, 15)).passed).toBe(false);
    expect(judge('creation', [Number.NaN], baseline(4, 15)).passed).toBe(false);
    expect(judge('creation', [Number.POSITIVE_INFINITY], baseline(4, 15)).passed).toBe(false);
  });

  it('says when the code became faster than main by more than the margin', () => {
    expect(judge('creation', [2, 2, 2], baseline(4, 15)).line).toContain('record a new baseline');
    expect(judge('creation', [3, 3, 3], baseline(4, 15)).line).not.toContain('record a new baseline');
  });
});

describe('readBaseline', () => {
  it('reads the committed baseline', () => {
    const b = readBaseline(resolve(import.meta.dirname, '../../bench/watch-baseline.json'));
    expect(b.checks.creation.ratio).toBeGreaterThan(1);
    expect(b.checks.signing.ratio).toBeGreaterThan(1);
  });

  it('refuses a file without a positive ratio for each check', () => {
    const dir = mkdtempSync(join(tmpdir(), 'watch-baseline-'));
    try {
      const file = join(dir, 'baseline.json');
      writeFileSync(file, JSON.stringify({ checks: { creation: { ratio: 4 }, signing: { ratio: 0 } } }));
      expect(() => readBaseline(file)).toThrow('checks.signing.ratio must be a positive number');
      writeFileSync(file, JSON.stringify({ checks: { creation: { ratio: '4' }, signing: { ratio: 15 } } }));
      expect(() => readBaseline(file)).toThrow('checks.creation.ratio must be a positive number');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
