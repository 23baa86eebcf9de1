import { defineConfig } from '@playwright/test';
import base from './playwright.config.ts';

/**
 * Benchmarks that need the dashboard in a real browser (not tests; `npm run bench -- stream` runs
 * them): the same server as the end-to-end tests (support/serve.ts), specs under ./bench.
 */
export default defineConfig({
  ...base,
  testDir: './bench',
  testMatch: /.*\.bench\.ts$/,
  retries: 0,
  timeout: 20 * 60_000,
});
