import { defineConfig, devices } from '@playwright/test';

/**
 * Dashboard end-to-end tests against a production build, a real Postgres, the hub and a node
 * agent, all started by support/serve.ts. Run from the repository root:
 *   npx playwright test -c e2e/playwright.config.ts
 */
export default defineConfig({
  testDir: './tests',
  outputDir: './.tmp/test-results',
  fullyParallel: false,
  workers: 1,
  // No retry by default; VITEST_RETRY (the suite's one switch for retries) is read here too.
  retries: Number(process.env.VITEST_RETRY ?? 0),
  forbidOnly: true,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    ...devices['Desktop Chrome'],
    locale: 'en-US',
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    // The dashboard's service worker (offline shell, push) stays out of every spec but the one
    // about it (pwa.spec.ts allows it): a worker answering page loads would hide them from
    // `page.route` and make a spec's result depend on what an earlier page installed.
    serviceWorkers: 'block',
    launchOptions: {
      // Debian's Chromium: Playwright cannot download its own browsers on these machines.
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
      ],
    },
  },
  webServer: {
    command: 'node --import tsx support/serve.ts',
    cwd: '.',
    // serve.ts picks free ports and prints this line once everything answers; URLs are in .tmp/state.json.
    wait: { stdout: /BRIA_E2E_READY/ },
    // next build alone took over 240 s on the shared 2-core machine under load (load average ~20).
    timeout: 600_000,
    reuseExistingServer: false,
    stdout: 'pipe',
    stderr: 'pipe',
    // Postgres, the hub and Next must get the chance to stop cleanly (SIGKILL would orphan Postgres).
    gracefulShutdown: { signal: 'SIGTERM', timeout: 20_000 },
  },
});
