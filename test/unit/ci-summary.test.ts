// CI's last line (.ci/summary.mjs) counts the tests and the benchmark watch's checks: a failed check,
// a watch that crashed or ran out of time, or tests that passed in a failed run never read green.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = resolve(import.meta.dirname, '../../.ci/summary.mjs');
const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) {
    rmSync(d, { recursive: true, force: true });
  }
});

interface Run {
  vitest?: object;
  watch?: object;
  env: Record<string, string>;
}

function summary({ vitest, watch, env }: Run) {
  const dir = mkdtempSync(join(tmpdir(), 'ci-summary-'));
  dirs.push(dir);
  if (vitest) {
    writeFileSync(join(dir, '.vitest-report.json'), JSON.stringify(vitest));
  }
  if (watch) {
    writeFileSync(join(dir, '.watch-report.json'), JSON.stringify(watch));
  }
  const r = spawnSync(process.execPath, [SCRIPT], { cwd: dir, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  const lines = r.stdout.trimEnd().split('\n');
  return { status: r.status, lines, last: lines.at(-1) };
}

const tests = (passed: number, failed = 0) => ({
  startTime: Date.now(),
  numPassedTests: passed,
  numFailedTests: failed,
  numPendingTests: 0,
});
const check = (name: string, passed: boolean) => ({ name, passed, line: `${name} ×2.00 (median of 7 pairs): ${passed ? 'pass' : 'FAIL'}` });

describe('the CI summary line', () => {
  it('adds the passed checks of the watch to the passed tests', () => {
    const r = summary({
      vitest: tests(10),
      watch: { checks: [check('creation', true), check('signing', true)] },
      env: { STATUS: '0', WATCH_STATUS: '0' },
    });
    expect(r.last).toBe('12 passed, 0 failed');
    expect(r.status).toBe(0);
  });

  it('counts a failed check as a failure, its verdict printed above the line, and fails the run', () => {
    const r = summary({
      vitest: tests(10),
      watch: { checks: [check('creation', false), check('signing', true)] },
      env: { STATUS: '0', WATCH_STATUS: '1' },
    });
    expect(r.last).toBe('11 passed, 1 failed');
    expect(r.lines.at(-3)).toBe('watch: creation ×2.00 (median of 7 pairs): FAIL');
    expect(r.status).toBe(1);
  });

  it('counts a watch that ran out of time or crashed, with or without a report, as one failure', () => {
    const timedOut = summary({
      vitest: tests(10),
      watch: { checks: [], error: 'the watch did not finish within 4 min' },
      env: { STATUS: '0', WATCH_STATUS: '1' },
    });
    expect(timedOut.last).toBe('10 passed, 1 failed');
    expect(timedOut.lines).toContain('watch: the watch did not finish within 4 min: see its output above.');
    const noReport = summary({ vitest: tests(10), env: { STATUS: '0', WATCH_STATUS: '124' } });
    expect(noReport.last).toBe('10 passed, 1 failed');
    expect(noReport.status).toBe(1);
    const failedAfterChecks = summary({
      vitest: tests(10),
      watch: { checks: [check('creation', true), check('signing', true)] },
      env: { STATUS: '0', WATCH_STATUS: '1' },
    });
    expect(failedAfterChecks.last).toBe('12 passed, 1 failed');
    const noVerdict = summary({ vitest: tests(10), watch: { checks: [] }, env: { STATUS: '0', WATCH_STATUS: '0' } });
    expect(noVerdict.last).toBe('10 passed, 1 failed');
  });

  it('keeps counting the tests as before: a failed run with every test passed is one failure', () => {
    const r = summary({ vitest: { ...tests(10), numTodoTests: 2 }, env: { STATUS: '1' } });
    expect(r.last).toBe('10 passed, 1 failed, 2 skipped');
    expect(r.lines).toContain('The tests passed, but the run failed: see the errors above.');
    expect(summary({ vitest: tests(8, 2), env: { STATUS: '1' } }).last).toBe('8 passed, 2 failed');
  });

  it('reads one failure when a gate stopped the run before the watch and the tests', () => {
    const r = summary({ env: { STATUS: '1', WATCH_STATUS: '' } });
    expect(r.last).toBe('0 passed, 1 failed');
    expect(r.status).toBe(1);
  });
});
