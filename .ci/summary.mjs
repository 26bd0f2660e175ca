// The end of a CI run (.ci/run): how long the tests took and on how busy a machine, the benchmark
// watch's verdicts, and last the plain line `N passed, N failed` (`, N skipped` when some were),
// counting each test and each check of the watch. Exits 1 when anything failed.
//
// Reads, in the current directory, vitest's JSON report (.vitest-report.json) and the watch's
// (.watch-report.json, from `npm run bench:watch -- --report FILE`). Environment: STATUS, the exit
// status of the tests, or of the install or gate that stopped the run before them; LOAD_BEFORE,
// the load average when the tests started; WATCH_STATUS, the exit status of the watch (unset or
// empty: it did not run).
import { existsSync, readFileSync } from 'node:fs';

const env = process.env;
const readJson = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined);
const loadavg = () => {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'n/a';
  }
};

let passed = 0;
let failed = 0;
let skipped = 0;

const tests = readJson('.vitest-report.json');
if (tests) {
  // The time from the report (vitest start to now) and the load average (1, 5, 15 min) around it:
  // the same suite takes several times longer on a busy machine (docs/testing.md).
  const s = Math.round((Date.now() - tests.startTime) / 1000);
  console.log(`The tests took ${Math.floor(s / 60)} min ${s % 60} s; load average ${env.LOAD_BEFORE ?? ''} before, ${loadavg()} after.`);
  passed += tests.numPassedTests;
  skipped += (tests.numPendingTests || 0) + (tests.numTodoTests || 0);
  if (env.STATUS !== '0' && tests.numFailedTests === 0) {
    // An error outside any test (an uncaught exception, an unhandled rejection) fails the run with
    // every test passed: it counts as one failure, so the summary never reads green on a red run.
    console.log('The tests passed, but the run failed: see the errors above.');
    failed += 1;
  } else {
    failed += tests.numFailedTests;
  }
} else {
  // No report: the install, a gate or vitest itself failed before any test could report.
  failed += 1;
}

if (env.WATCH_STATUS) {
  const watch = readJson('.watch-report.json');
  if (!watch) {
    console.log('watch: no report (it crashed or was stopped): see its output above.');
    failed += 1;
  } else {
    for (const check of watch.checks) {
      console.log(`watch: ${check.line}`);
      if (check.passed) {
        passed += 1;
      } else {
        failed += 1;
      }
    }
    const checksFailed = watch.checks.some((c) => !c.passed);
    if (watch.error) {
      console.log(`watch: ${watch.error}: see its output above.`);
      failed += 1;
    } else if (watch.checks.length === 0) {
      console.log('watch: no verdict: see its output above.');
      failed += 1;
    } else if (env.WATCH_STATUS !== '0' && !checksFailed) {
      console.log('watch: every check passed, but the watch failed: see its output above.');
      failed += 1;
    }
  }
}

console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed > 0 ? 1 : 0;
