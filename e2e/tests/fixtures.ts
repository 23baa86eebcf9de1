import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test as base, expect, type Page } from '@playwright/test';
import { readState, type E2EState } from '../support/state.ts';

export const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');

interface Fixtures {
  state: E2EState;
  /** A fresh one-time login link (each test gets its own: a link works once). */
  newLoginLink: (opts?: { expired?: boolean }) => Promise<string>;
  /** A page whose browser has signed in through a one-time link. */
  signedInPage: Page;
  saveShot: (page: Page, name: string) => Promise<void>;
  /**
   * The dashboard's real process: `stop` ends it, `start` runs it again on the same port and
   * resolves once it answers. A test that stopped it gets it started again afterwards, pass or fail,
   * so the specs after it are unaffected.
   */
  webServer: { stop: () => Promise<void>; start: (opts?: { env?: Record<string, string> }) => Promise<void> };
}

export const test = base.extend<Fixtures>({
  // Every page a test drives must run under the dashboard's CSP without one violation (Chromium
  // reports each refused script, style, frame or connection on the console).
  page: async ({ page }, use) => {
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content[- ]Security[- ]Policy/i.test(m.text())) violations.push(m.text());
    });
    await use(page);
    expect(violations, 'CSP violations on the console').toEqual([]);
  },
  // biome-ignore lint/correctness/noEmptyPattern: Playwright requires a destructured first parameter
  state: async ({}, use) => use(readState()),
  baseURL: async ({ state }, use) => use(state.baseURL),
  newLoginLink: async ({ state, request }, use) => {
    await use(async (opts) => {
      const res = await request.post(`${state.controlURL}/login-link${opts?.expired ? '?expired=1' : ''}`);
      expect(res.status()).toBe(200);
      return ((await res.json()) as { url: string }).url;
    });
  },
  signedInPage: async ({ page, newLoginLink }, use) => {
    await page.goto(await newLoginLink());
    await expect(page).toHaveURL(/\/$/);
    await use(page);
  },
  webServer: async ({ state, request }, use) => {
    const call = async (what: 'stop' | 'start', env?: Record<string, string>) => {
      const res = await request.post(`${state.controlURL}/web/${what}`, { timeout: 90_000, ...(env ? { data: { env } } : {}) });
      expect(res.status(), `web/${what}`).toBe(204);
    };
    let changed = false;
    await use({
      stop: () => call('stop'),
      start: (opts) => {
        if (opts?.env) changed = true;
        return call('start', opts?.env);
      },
    });
    // Back as the other specs know it: running, with the usual variables.
    if (changed) await call('stop');
    await call('start');
  },
  // biome-ignore lint/correctness/noEmptyPattern: Playwright requires a destructured first parameter
  saveShot: async ({}, use) => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await use(async (page, name) => {
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
    });
  },
});

export { expect };
