import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { isAlive } from '../../apps/node-agent/src/executors/proc-tree.ts';
import { type DeskTerminal, startDesk } from '../../packages/testkit/src/desk.ts';
import { waitUntil } from '../../packages/testkit/src/wait.ts';
import { expect, test } from './fixtures.ts';

let db: Db;
const desks: DeskTerminal[] = [];
test.afterAll(async () => {
  for (const d of desks) d.end();
  await db?.$disconnect();
});

/**
 * Desk ↔ phone in the browser, with the real Claude Code begun by hand in a tmux server of the
 * user's own: the live session is under Open sessions as running in a terminal (not archived),
 * its page explains and offers Continue here, and after the take-over the answer to a message
 * typed on the page arrives there, on the same native session.
 */
for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test.describe(`${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test('a session begun by hand is live under Open sessions; Continue here takes it over and the answer arrives on the page', async ({
      signedInPage: page,
      state,
      saveShot,
    }) => {
      test.setTimeout(300_000);
      db ??= createDb(state.databaseUrl, { max: 2 });
      const folder = path.join(state.workDir, `desk-${viewport.width}-${randomUUID().slice(0, 6)}`);
      mkdirSync(folder, { recursive: true });
      const desk = await startDesk({ executor: 'claude', folder, env: state.cliEnv });
      desks.push(desk);
      await desk.type(`begun at the desk ${viewport.width}`);
      const row = await waitUntil(
        'the desk session in Bria',
        async () => db.session.findFirst({ where: { folder, handoff: 'desk', deskPid: { not: null } } }),
        60_000,
      );

      await page.goto('/');
      const item = page.locator(`[data-testid="open-session"][data-session-id="${row.id}"]`);
      await expect(item).toBeVisible({ timeout: 30_000 });
      await expect(item.getByTestId('session-state')).toHaveText(/running in a terminal/i);
      await saveShot(page, `desk-open-sessions-${viewport.width}`);

      await page.goto(`/sessions/${row.id}`);
      await expect(page.getByTestId('desk-running')).toContainText(`pid ${row.deskPid}`);
      expect(row.deskCommand).toMatch(/^claude/);
      await expect(page.getByTestId('desk-command')).toContainText(`Started as: ${row.deskCommand}`);
      await page.getByTestId('continue-here').click();
      await expect(page.getByTestId('inline-confirm')).toContainText('ends the CLI at the computer');
      await saveShot(page, `desk-continue-confirm-${viewport.width}`);
      await page.getByRole('button', { name: 'End it there and continue here' }).click();
      await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });
      expect(await isAlive(row.deskPid!)).toBe(false);
      await expect(page.getByTestId('attach-command')).toContainText(`tmux -L ${state.tmuxSocket} attach -t bria-`);

      const text = `from the phone ${randomUUID().slice(0, 8)}`;
      await page.getByTestId('message-input').fill(text);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(page.getByTestId('conversation')).toContainText(`you said "${text}"`, { timeout: 120_000 });
      const after = await db.session.findUniqueOrThrow({ where: { id: row.id } });
      expect(after.nativeSessionId).toBe(row.nativeSessionId);
      expect(after.handoff).toBe('none');
      // The page stays within the screen's width (nothing of the panel pushes it wider).
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await saveShot(page, `desk-continued-${viewport.width}`);
    });
  });
}
