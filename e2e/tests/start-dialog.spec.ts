import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cliPaneOf, e2eTmux } from '../support/state.ts';
import { expect, test } from './fixtures.ts';

/** The pane of a session's CLI in this run's tmux. */
function paneOf(sessionId: string): string | null {
  return cliPaneOf(sessionId)?.paneId ?? null;
}

test('a CLI starting on a dialog: the session page shows the dialog until it is answered on the computer, then Ready', async ({
  signedInPage: page,
  saveShot,
}) => {
  test.setTimeout(150_000);
  // Outside the folder the CLIs trust: Claude asks whether to trust it before its prompt.
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
    await expect(banner).toContainText('Waiting for you on the computer');
    await expect(banner.locator('pre')).toContainText(/trust/i);
    await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Starting');
    await saveShot(page, 'session-waiting-dialog');

    // The user answers on the computer (Enter: the dialog's first choice, trust the folder).
    const pane = paneOf(sessionId);
    expect(pane).not.toBeNull();
    e2eTmux('send-keys', '-t', pane!, 'Enter');
    await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 60_000 });
    await expect(banner).toHaveCount(0);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
