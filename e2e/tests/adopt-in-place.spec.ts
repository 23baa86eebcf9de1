import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { closeSession } from '@bria/core/services';
import { isAlive } from '../../apps/node-agent/src/executors/proc-tree.ts';
import { type DeskTerminal, startDesk } from '../../packages/testkit/src/desk.ts';
import { waitUntil } from '../../packages/testkit/src/wait.ts';
import { expect, test } from './fixtures.ts';

let db: Db;
const desks: DeskTerminal[] = [];
const adopted: string[] = [];
// The specs share one server: the adopted sessions are closed in Bria (which releases the desk's
// pane) before the desk CLIs end, or Bria would recover them as lost CLIs while later specs run.
test.afterAll(async () => {
  for (const id of adopted) {
    const closing = await closeSession({ db }, { sessionId: id }).then(
      () => true,
      () => false, // never adopted (the test failed before): nothing of Bria's to close
    );
    if (closing)
      await waitUntil(
        'the adopted session archived',
        async () => ((await db.session.findUnique({ where: { id } }))?.state === 'Archived' ? true : null),
        60_000,
      );
  }
  for (const d of desks) d.end();
  await db?.$disconnect();
});

/**
 * Adopt in place in the browser, with the real Claude Code begun by hand in a tmux server of the
 * user's own: the session page offers "Adopt in place" beside "Continue here"; after the
 * confirmation the session is Ready with the same desk process, the page shows the user's own attach
 * command, and a message typed on the page is typed into that pane and answered on the page.
 */
for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test.describe(`${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test("Adopt in place keeps the desk CLI running and types the page's message into its pane", async ({ signedInPage: page, state, saveShot }) => {
      test.setTimeout(300_000);
      db ??= createDb(state.databaseUrl, { max: 2 });
      const folder = path.join(state.workDir, `adopt-${viewport.width}-${randomUUID().slice(0, 6)}`);
      mkdirSync(folder, { recursive: true });
      const socket = `desk-adopt-e2e-${viewport.width}-${randomUUID().slice(0, 6)}`;
      const desk = await startDesk({ executor: 'claude', folder, env: state.cliEnv, socket });
      desks.push(desk);
      await desk.type(`begun at the desk ${viewport.width}`);
      const row = await waitUntil(
        'the desk session in Bria',
        async () => db.session.findFirst({ where: { folder, handoff: 'desk', deskPid: { not: null }, deskInTmux: true } }),
        60_000,
      );

      adopted.push(row.id);
      await page.goto(`/sessions/${row.id}`);
      await expect(page.getByTestId('desk-running')).toContainText(`pid ${row.deskPid}`);
      await expect(page.getByTestId('continue-here')).toBeVisible();
      await page.getByTestId('adopt-in-place').click();
      await expect(page.getByTestId('inline-confirm')).toContainText('keeps running in its tmux pane');
      await saveShot(page, `desk-adopt-confirm-${viewport.width}`);
      await page.getByRole('button', { name: 'Adopt it where it runs' }).click();
      await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });
      expect(await isAlive(row.deskPid!)).toBe(true);
      await expect(page.getByTestId('attach-command')).toContainText(`tmux -S `);
      await expect(page.getByTestId('attach-command')).toContainText(`/${socket} attach -t desk`);

      const text = `from the page ${randomUUID().slice(0, 8)}`;
      await page.getByTestId('message-input').fill(text);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(page.getByTestId('conversation')).toContainText(`you said "${text}"`, { timeout: 120_000 });
      const pane = execFileSync('tmux', ['-L', socket, 'capture-pane', '-p', '-J', '-S', '-500', '-t', 'desk'], { encoding: 'utf8' });
      expect(pane).toContain(text);
      const after = await db.session.findUniqueOrThrow({ where: { id: row.id } });
      expect(after).toMatchObject({ nativeSessionId: row.nativeSessionId, handoff: 'adopted' });
      expect((after.identity as { pid?: number } | null)?.pid).toBe(row.deskPid);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await saveShot(page, `desk-adopted-${viewport.width}`);
    });
  });
}
