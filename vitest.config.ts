import { defineConfig } from 'vitest/config';

// One runner for the whole workspace. Integration tests start real Postgres, tmux and CLIs,
// so files run in a small pool and tests get generous timeouts; speed is measured in `npm run bench`.
export default defineConfig({
  test: {
    globalSetup: ['scripts/vitest-global-setup.ts'],
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'scripts/**/*.test.ts', 'tests/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
  },
});
