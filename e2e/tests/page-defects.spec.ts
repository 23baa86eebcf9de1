import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cliPaneOf, e2eTmux } from '../support/state.ts';
import { expect, test } from './fixtures.ts';

/** The pane of a session's CLI in this run's tmux. */
function paneOf(sessionId: string): string | null {
  return cliPaneOf(sessionId)?.paneId ?? null;
}

/** The session page's defects of issue 31, each checked at a desktop and a phone size (in the numbering). */
for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test.describe(`${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test('2 and 10: the start dialog says Bria answers only with your answer, and its text never widens the page', async ({ signedInPage: page, saveShot }) => {
      test.setTimeout(150_000);
      const folder = mkdtempSync(path.join(tmpdir(), 'bria-e2e-untrusted-'));
      try {
        await page.goto('/');
        await page.locator('[data-testid="node-card"][data-node-name="this computer"]').getByTestId('node-sessions-link').click();
        await page.getByRole('link', { name: 'New session' }).click();
        await page.getByRole('radio', { name: 'Claude Code' }).check();
        await page.getByLabel('Working folder (absolute path)').fill(folder);
        await page.getByRole('button', { name: 'Start a new session' }).click();
        await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/);
        const sessionId = page.url().split('/').at(-1) ?? '';
        const banner = page.getByTestId('waiting-dialog');
        await expect(banner).toBeVisible({ timeout: 60_000 });
        await expect(page.getByRole('button', { name: 'Trust this folder and start' })).toBeVisible({ timeout: 60_000 });
        // 2: no sentence above the button says Bria never answers the dialog.
        await expect(page.locator('body')).not.toContainText(/never answers/i);
        await expect(banner).toContainText('Bria answers it only with the answer you choose here');
        // 10: the page is no wider than the window.
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width).toBeLessThanOrEqual(viewport.width);
        await saveShot(page, `defect-2-10-start-dialog-${viewport.width}`);
        const pane = paneOf(sessionId);
        expect(pane).not.toBeNull();
        e2eTmux('send-keys', '-t', pane!, 'Enter');
        await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 60_000 });
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    });

    test('11: the sign-in page names npm run login, the way back in', async ({ page }) => {
      await page.goto('/signin');
      await expect(page.locator('main')).toContainText('npm run login');
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(viewport.width);
    });
  });
}
