import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // What the browser tests poll for (a capture through the image jail, a list read again) can take
    // seconds on a busy 2-core machine; 1 s, the default, made them fail by chance there.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.vitest-report.json' }]] : ['default'],
  },
});
