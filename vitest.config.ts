import { defineConfig } from 'vitest/config';

// One runner for the whole workspace. Integration tests start real Postgres, tmux and CLIs,
// so files run in a small pool and tests get generous timeouts; speed is measured in `npm run bench`.
export default defineConfig({
  test: {
    globalSetup: ['scripts/vitest-global-setup.ts'],
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'scripts/**/*.test.ts', 'tests/**/*.test.ts'],
    testTimeout: 60_000,
    // Many tests drive real CLIs, tmux and Postgres on 2 cores, where a timing tail now and then
    // exceeds a wait. A test gets one more try; one that fails twice fails the run, and the JSON
    // report (.tmp/test-results/vitest.json) keeps the retry count, so flaky tests stay visible.
    // VITEST_RETRY=0 turns the retry off (a load run proves the suite green without it).
    retry: process.env.VITEST_RETRY === undefined ? 1 : Number(process.env.VITEST_RETRY),
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
  },
});
