// The watch's verdict (bench/watch.ts), apart from any measurement so that it is tested alone: a
// statistic of the per-pair ratios (STATISTIC) against the same statistic recorded for main in
// bench/watch-baseline.json, times the margin. docs/performance.md ("The watch in CI") says why.
import { readFileSync } from 'node:fs';

/**
 * A check fails when its ratio exceeds main's by more than this factor. A change that halves
 * creation throughput doubles the CPU a document costs, and so the ratio (×2): the limit must sit
 * below ×2 to catch it even where the ratio runs lower than main's (down to ×0.83 seen), and above
 * the spread of unchanged code on a loaded machine (up to ×1.49 seen, with the machine's other work
 * and two busy loops): ×1.6 is between the two.
 */
export const MARGIN = 1.6;

export type CheckName = 'creation' | 'signing';

/**
 * Which statistic of its per-pair ratios each check judges. Creation: the median (each pair is
 * already the mean of a batch of documents). Signing: the lower quartile, since each pair is one
 * signature, and on a busy machine the signatures that another process disturbed (caches
 * evicted, a core shared) cost more CPU while the floor, RSA in registers, does not; the
 * undisturbed quarter moves least with the load (docs/performance.md).
 */
export const STATISTIC: Record<CheckName, { name: string; of: (xs: number[]) => number }> = {
  creation: { name: 'median', of: (xs) => median(xs) },
  signing: { name: 'lower quartile', of: (xs) => lowerQuartile(xs) },
};

export interface BaselineCheck {
  /** The check's statistic (STATISTIC) of the ratios measured on main. */
  ratio: number;
  /** What the ratio is, in words. */
  what: string;
}

export interface Baseline {
  /** How, when and where the ratios were measured. */
  measured: { date: string; commit: string; machine: string; load: string; runs: string };
  checks: Record<CheckName, BaselineCheck>;
}

export interface CheckResult {
  name: CheckName;
  /** The check's statistic of this run's ratios. */
  value: number;
  pairs: number;
  baseline: number;
  limit: number;
  passed: boolean;
  /** One readable line: ratio, pairs, limit, verdict. */
  line: string;
}

/** The report .ci/run reads: each check's result, or why the watch could not judge. */
export interface WatchReport {
  checks: CheckResult[];
  error?: string;
}

export function median(xs: number[]): number {
  if (xs.length === 0) {
    return NaN;
  }
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The lower quartile by nearest rank: the value a quarter of the way up the sorted values. */
export function lowerQuartile(xs: number[]): number {
  if (xs.length === 0) {
    return NaN;
  }
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(s.length / 4) - 1)];
}

/** The verdict on one check; no ratio, or one that is not a number, fails it. */
export function judge(name: CheckName, ratios: number[], baseline: Baseline, margin = MARGIN): CheckResult {
  const statistic = STATISTIC[name];
  const m = ratios.some((r) => !Number.isFinite(r)) ? NaN : statistic.of(ratios);
  const base = baseline.checks[name].ratio;
  const limit = base * margin;
  const passed = Number.isFinite(m) && m > 0 && m <= limit;
  const verdict = passed ? 'pass' : 'FAIL';
  const line =
    `${name.padEnd(8)} ×${fmt(m)} (${statistic.name} of ${ratios.length} pairs; main ×${fmt(base)}, limit ×${fmt(limit)} = ×${margin} main): ${verdict}` +
    (passed && m < base / margin ? ` (faster than main by more than the margin: record a new baseline)` : '');
  return { name, value: m, pairs: ratios.length, baseline: base, limit, passed, line };
}

export function readBaseline(path: string): Baseline {
  const b = JSON.parse(readFileSync(path, 'utf8')) as Baseline;
  for (const name of ['creation', 'signing'] as const) {
    const r = b.checks?.[name]?.ratio;
    if (typeof r !== 'number' || !(r > 0)) {
      throw new Error(`${path}: checks.${name}.ratio must be a positive number`);
    }
  }
  return b;
}

function fmt(n: number) {
  return Number.isFinite(n) ? n.toFixed(2) : 'n/a';
}
