import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { acceptMessage, closeSession, createSession } from '@bria/core/services';
import { expect, test } from './fixtures.ts';

let db: Db;
/** Sessions these tests opened: closed afterwards, so the specs after them find the computer as they expect. */
const opened: string[] = [];
test.afterAll(async () => {
  for (const sessionId of opened) await closeSession({ db }, { sessionId }).catch(() => undefined);
  // Until each is archived (its CLI gone), not just asked to close.
  for (const sessionId of opened)
    await expect.poll(async () => (await db.session.findUnique({ where: { id: sessionId } }))?.state ?? 'Archived', { timeout: 60_000 }).toBe('Archived');
  await db?.$disconnect();
});

/**
 * Issue 33 on the session page, with the real Claude CLI: a scheduled message made, listed and
 * cancelled, a cron refused in words, a recurring one made on a phone; "Send now" offered while a
 * turn runs, which stops it and sends the text next.
 */
for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test.describe(`${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });
    test('scheduled messages: made, listed, refused in words, cancelled; send now stops the running turn', async ({ signedInPage: page, state, saveShot }) => {
      test.setTimeout(240_000);
      db ??= createDb(state.databaseUrl, { max: 2 });
      const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
      const folder = path.join(state.workDir, `schedules-${viewport.width}-${Date.now()}`);
      mkdirSync(folder, { recursive: true });
      const s = await createSession({ db }, { nodeId: node.id, executor: 'claude', folder });
      opened.push(s.id);
      await page.goto(`/sessions/${s.id}`);
      await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });

      const panel = page.getByTestId('schedules');
      await panel.locator('summary').click();
      const once = `nightly check ${viewport.width} ${Date.now()}`;
      await panel.getByTestId('schedule-text').fill(once);
      await panel.getByTestId('schedule-submit').click();
      await expect(panel.getByTestId('schedule-status')).toContainText('Scheduled: first at');
      const item = panel.getByTestId('schedule').filter({ hasText: once });
      await expect(item).toHaveAttribute('data-status', 'active');
      await expect(item).toContainText('next ');
      const row = await db.scheduledMessage.findFirstOrThrow({ where: { sessionId: s.id, text: once } });
      expect(row).toMatchObject({ kind: 'once', status: 'active', createdFrom: 'web' });
      // An hour from now by default, in this browser's zone.
      expect(Math.abs((row.nextRunAt?.getTime() ?? 0) - Date.now() - 3_600_000)).toBeLessThan(120_000);

      // A cron Bria cannot read is refused in words, and nothing is stored.
      await panel.getByTestId('schedule-recurring').check();
      await panel.getByTestId('schedule-cron').fill('61 * * * *');
      await panel.getByTestId('schedule-text').fill('never stored');
      await panel.getByTestId('schedule-submit').click();
      await expect(panel.getByTestId('schedule-status')).toHaveText(
        'That is not a cron expression Bria understands (five fields: minute hour day month weekday).',
      );
      expect(await db.scheduledMessage.count({ where: { sessionId: s.id, text: 'never stored' } })).toBe(0);
      await panel.getByTestId('schedule-cron').fill('@daily');
      await panel.getByTestId('schedule-submit').click();
      await expect(panel.getByTestId('schedule').filter({ hasText: 'never stored' })).toContainText('every “@daily”');
      await saveShot(page, `schedules-${viewport.width}`);

      await item.getByRole('button', { name: 'Cancel schedule' }).click();
      await item.getByRole('button', { name: 'Yes, cancel it' }).click();
      await expect(item).toHaveAttribute('data-status', 'cancelled');
      expect((await db.scheduledMessage.findUniqueOrThrow({ where: { id: row.id } })).status).toBe('cancelled');

      // Send now: offered only while a turn runs.
      await expect(page.getByTestId('send-now')).toHaveCount(0);
      await acceptMessage({ db }, { sessionId: s.id, text: `STALL main ${viewport.width}`, source: 'web' });
      await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Running', { timeout: 60_000 });
      await page.getByTestId('send-now').check();
      const now = `instead ${viewport.width} ${Date.now()}`;
      await page.getByTestId('message-input').fill(now);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(page.getByTestId('send-status')).toContainText('The running turn is being stopped for it.');
      await expect
        .poll(async () => (await db.message.findMany({ where: { sessionId: s.id }, orderBy: { seq: 'asc' } })).map((m) => m.status), { timeout: 120_000 })
        .toEqual(['terminal_failed', 'completed']);
      const sent = await db.message.findFirstOrThrow({ where: { sessionId: s.id, text: now } });
      expect(sent.finalText).toContain(now);
    });
  });
}
