// The benchmark watch's verdict: the median of the per-pair ratios against main's ratio times the
// margin, so that one wild pair on a busy machine decides nothing, and a ratio doubled by a slower
// change fails; no measurement at all never passes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Baseline, judge, lowerQuartile, MARGIN, median, readBaseline } from '../../bench/watch-verdict.js';

const baseline = (creation: number, signing: number): Baseline => ({
  measured: { date: 'd', commit: 'c', machine: 'm', load: 'l', runs: 'r' },
  checks: { creation: { ratio: creation, what: '' }, signing: { ratio: signing, what: '' } },
});

describe('median and lower quartile', () => {
  it('the median is the middle of the sorted values, or the mean of the two middle ones', () => {
    expect(median([9, 1, 5])).toBe(5);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('the lower quartile is the value a quarter of the way up, by nearest rank', () => {
    expect(lowerQuartile([8, 1, 7, 2, 6, 3, 5, 4])).toBe(2);
    expect(lowerQuartile([5, 3, 9, 1, 7])).toBe(3);
    expect(lowerQuartile([4])).toBe(4);
    expect(lowerQuartile([])).toBeNaN();
  });
});

describe('judge', () => {
  it('creation: passes up to main times the margin and fails beyond it, on the median', () => {
    const b = baseline(4, 15);
    expect(judge('creation', [4, 4 * MARGIN, 3], b).passed).toBe(true);
    expect(judge('creation', [4 * MARGIN + 0.01, 9, 3], b).passed).toBe(false);
    expect(judge('creation', [4 * MARGIN + 0.01, 9, 3], b).line).toBe(
      `creation ×${(4 * MARGIN + 0.01).toFixed(2)} (median of 3 pairs; main ×4.00, limit ×${(4 * MARGIN).toFixed(2)} = ×${MARGIN} main): FAIL`,
    );
  });

  it('signing: judges the lower quartile, so that the pairs a busy machine disturbed do not decide', () => {
    const b = baseline(4, 15);
    // Half the signatures disturbed, far above the limit: the undisturbed quarter is still main's.
    expect(judge('signing', [15, 16, 14, 15, 40, 45, 50, 38], b).passed).toBe(true);
    expect(judge('signing', [15, 16, 14, 15, 40, 45, 50, 38], b).line).toMatch(/^signing {2}×15\.00 \(lower quartile of 8 pairs; /);
    // Every signature slower: the quartile moves with them.
    expect(judge('signing', [30, 31, 29, 32, 33, 30, 29, 31], b).passed).toBe(false);
  });

  it('a change that doubles the cost, and so the ratio, fails', () => {
    expect(judge('signing', [30, 31, 29], baseline(4, 15)).passed).toBe(false);
    expect(judge('creation', [8, 8, 8], baseline(4, 15)).passed).toBe(false);
  });

  it('one wild pair does not move the verdict', () => {
    expect(judge('creation', [4, 4.2, 3.9, 200, 4.1], baseline(4, 15)).passed).toBe(true);
    expect(judge('creation', [8.1, 8, 0.5, 8.3, 7.9], baseline(4, 15)).passed).toBe(false);
  });

  it('no pairs, or a ratio that is not a number, fails', () => {
    for (const name of ['creation', 'signing'] as const) {
      expect(judge(name, [], baseline(4, 15)).passed).toBe(false);
      expect(judge(name, [4, Number.NaN, 4, 4, 4], baseline(4, 15)).passed).toBe(false);
      expect(judge(name, [4, Number.POSITIVE_INFINITY, 4, 4, 4], baseline(4, 15)).passed).toBe(false);
    }
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
