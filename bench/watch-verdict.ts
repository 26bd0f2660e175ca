// The watch's verdict (bench/watch.ts), apart from any measurement so that it is tested alone: the
// median of the per-pair ratios against the ratio recorded for main in bench/watch-baseline.json,
// times the margin. docs/performance.md ("The watch in CI") says why this margin.
import { readFileSync } from 'node:fs';

/**
 * A check fails when its median ratio exceeds the baseline's by more than this factor. A change
 * that halves creation throughput doubles the CPU a document costs, and so the ratio (×2): the
 * limit must sit well below ×2 to catch it on the noisiest machine, and well above the spread of
 * the median between runs on a loaded one (up to ×1.3 seen): ×1.6 is between the two.
 */
export const MARGIN = 1.6;

export type CheckName = 'creation' | 'signing';

export interface BaselineCheck {
  /** The median ratio measured on main. */
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
  median: number;
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

/** The verdict on one check; no ratio, or one that is not a number, fails it. */
export function judge(name: CheckName, ratios: number[], baseline: Baseline, margin = MARGIN): CheckResult {
  const m = median(ratios);
  const base = baseline.checks[name].ratio;
  const limit = base * margin;
  const passed = Number.isFinite(m) && m > 0 && m <= limit;
  const verdict = passed ? 'pass' : 'FAIL';
  const line =
    `${name.padEnd(8)} ×${fmt(m)} (median of ${ratios.length} pairs; main ×${fmt(base)}, limit ×${fmt(limit)} = ×${margin} main): ${verdict}` +
    (passed && m < base / margin ? ` (faster than main by more than the margin: record a new baseline)` : '');
  return { name, median: m, pairs: ratios.length, baseline: base, limit, passed, line };
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
