import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { closeSession, createSession } from '@bria/core/services';
import { expect, test } from './fixtures.ts';

let db: Db;
test.afterAll(async () => {
  await db?.$disconnect();
});

/**
 * Issue 33 on the session page with the real Claude CLI: while its turn waits on a permission
 * request (the mock model's TOOLBASH), the queue is held; the two messages sent meanwhile say so,
 * one is edited in place and the other cancelled. The rows are re-read, the refusal of a change
 * after the hand-over is shown in words (a second tab that missed the change), and the model's
 * request log shows that the CLI got the edited text and never the cancelled one.
 */
for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test.describe(`${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });
    test('a held message is edited in place, another cancelled; the CLI gets the edit and never the cancelled text', async ({
      signedInPage: page,
      state,
      browser,
      newLoginLink,
      request,
      saveShot,
    }) => {
      test.setTimeout(300_000);
      db ??= createDb(state.databaseUrl, { max: 2 });
      const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
      const u = `${viewport.width}x${Date.now()}`;
      const folder = path.join(state.workDir, `queue-${u}`);
      mkdirSync(folder, { recursive: true });
      const s = await createSession({ db }, { nodeId: node.id, executor: 'claude', folder });
      // Sent from the composer; stored once the composer is empty again (the row is read afterwards).
      const send = async (text: string) => {
        await page.getByTestId('message-input').fill(text);
        await page.getByRole('button', { name: 'Send' }).click();
        await expect(page.getByTestId('message-input')).toHaveValue('');
      };
      try {
        await page.goto(`/sessions/${s.id}`);
        await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });
        await send(`please TOOLBASH-q${u.replace('x', '_')} now`);
        await expect(page.getByTestId('prompt')).toBeVisible({ timeout: 120_000 });

        const draft = `draft ${u} alpha`;
        const edited = `edited ${u} beta`;
        const cancelled = `cancelled ${u} gamma`;
        await send(draft);
        await send(cancelled);
        await expect(page.getByTestId('queued-text')).toHaveText([draft, cancelled]);
        const rowOf = async (text: string) => db.message.findFirstOrThrow({ where: { sessionId: s.id, text } });
        const toEdit = await rowOf(draft);
        const toCancel = await rowOf(cancelled);
        const editItem = page.locator(`[data-testid="queued-message"][data-message-id="${toEdit.id}"]`);
        const cancelItem = page.locator(`[data-testid="queued-message"][data-message-id="${toCancel.id}"]`);
        // The head says which dialog holds it; the one behind names the message before it.
        await expect(editItem.getByTestId('queue-line')).toHaveText('Held while the permission request for Bash is open: answer it and this goes next.');
        await expect(editItem.getByTestId('queue-state')).toHaveText(`· #${toEdit.seq} · held`);
        await expect(cancelItem.getByTestId('queue-line')).toHaveText(`Waits for message #${toEdit.seq} before it.`);

        // A second tab that will miss what happens next (its live stream cut), for the refusal below.
        const context = await browser.newContext({ baseURL: state.baseURL, locale: 'en-US', viewport });
        try {
          const stale = await context.newPage();
          await stale.goto(await newLoginLink());
          await stale.route(/\/api\/trpc\/live\.changes/, (r) => r.abort());
          await stale.goto(`/sessions/${s.id}`);
          const staleItem = stale.locator(`[data-testid="queued-message"][data-message-id="${toEdit.id}"]`);
          await expect(staleItem.getByTestId('queue-edit')).toBeVisible();

          // Escape leaves the edit without saving, back on Edit.
          await editItem.getByTestId('queue-edit').click();
          await editItem.getByTestId('queue-edit-input').fill('never saved');
          await editItem.getByTestId('queue-edit-input').press('Escape');
          await expect(editItem.getByTestId('queue-edit-input')).toHaveCount(0);
          await expect(editItem.getByTestId('queue-edit')).toBeFocused();
          await expect(editItem.getByTestId('queued-text')).toHaveText(draft);
          expect((await db.message.findUniqueOrThrow({ where: { id: toEdit.id } })).text).toBe(draft);

          // Edit in place: the composer's keys (Ctrl+Enter saves).
          await editItem.getByTestId('queue-edit').click();
          const input = editItem.getByTestId('queue-edit-input');
          await expect(input).toBeFocused();
          await expect(input).toHaveValue(draft);
          await input.fill(edited);
          await saveShot(page, `queue-control-editing-${viewport.width}`);
          await input.press('Control+Enter');
          await expect(editItem.getByTestId('queue-change-notice')).toHaveText('Saved: the CLI will get the new text.');
          await expect(editItem.getByTestId('queued-text')).toHaveText(edited);
          await expect(editItem.getByTestId('message-edited')).toBeVisible();
          await editItem.getByTestId('edited-original').locator('summary').click();
          await expect(editItem.getByTestId('edited-original')).toContainText(draft);
          expect(await db.message.findUniqueOrThrow({ where: { id: toEdit.id }, select: { text: true, originalText: true, status: true } })).toEqual({
            text: edited,
            originalText: draft,
            status: 'pending',
          });

          // Cancel asks first, in place.
          await cancelItem.getByTestId('queue-cancel').click();
          const confirm = cancelItem.getByTestId('inline-confirm');
          await expect(confirm).toContainText(`Cancel message #${toCancel.seq}? It will never be sent to the CLI.`);
          await confirm.getByRole('button', { name: 'Yes, cancel it' }).click();
          const gone = page.locator(`[data-testid="cancelled-message"][data-message-id="${toCancel.id}"]`);
          await expect(gone.getByTestId('queue-line')).toHaveText('Cancelled: never sent to the CLI.');
          await expect(gone.getByTestId('queue-cancel')).toHaveCount(0);
          expect((await db.message.findUniqueOrThrow({ where: { id: toCancel.id } })).status).toBe('cancelled');
          // Both stay after the turns in the order they were sent.
          const tail = page.locator('[data-testid="queued-message"], [data-testid="cancelled-message"]');
          await expect(tail).toHaveCount(2);
          expect(await tail.evaluateAll((els) => els.map((e) => e.getAttribute('data-message-id')))).toEqual([toEdit.id, toCancel.id]);
          await saveShot(page, `queue-control-${viewport.width}`);

          // Answer the request: the turn ends and the edited message goes next, then is answered.
          await page.getByTestId('prompt').getByRole('button', { name: 'Allow', exact: true }).click();
          const answered = page.locator(`[data-testid="turn"][data-message-id="${toEdit.id}"]`);
          await expect(answered.getByTestId('queue-state')).toHaveText(`· #${toEdit.seq} · answered`, { timeout: 120_000 });
          await expect(answered.getByTestId('message-edited')).toBeVisible();
          const done = await db.message.findUniqueOrThrow({ where: { id: toEdit.id } });
          expect([done.status, done.text, done.originalText]).toEqual(['completed', edited, draft]);
          expect(done.finalText).toMatch(new RegExp(`^MOCK-REPLY-\\d+: you said "${edited}"$`));
          expect((await db.message.findUniqueOrThrow({ where: { id: toCancel.id } })).status).toBe('cancelled');
          expect(await db.agentCommand.count({ where: { sessionId: s.id, type: 'deliver', payload: { path: ['messageId'], equals: toCancel.id } } })).toBe(0);

          // The model saw the edited text, never the first draft nor the cancelled message.
          const res = await request.get(`${state.controlURL}/mock/claude/requests`);
          expect(res.status()).toBe(200);
          const asked = ((await res.json()) as unknown[]).map((r) => JSON.stringify(r));
          expect(asked.filter((r) => r.includes(edited)).length).toBeGreaterThan(0);
          expect(asked.filter((r) => r.includes(cancelled))).toEqual([]);
          expect(asked.filter((r) => r.includes(draft))).toEqual([]);

          // The tab that missed all of it still offers Edit; its Cancel is refused in words, and nothing changes.
          await staleItem.getByTestId('queue-cancel').click();
          await staleItem.getByTestId('inline-confirm').getByRole('button', { name: 'Yes, cancel it' }).click();
          await expect(stale.getByTestId('queue-change-notice')).toHaveText(/^Already delivered: .*so it was not changed\.$/);
          expect((await db.message.findUniqueOrThrow({ where: { id: toEdit.id } })).status).toBe('completed');
        } finally {
          await context.close();
        }
      } finally {
        await closeSession({ db }, { sessionId: s.id }).catch(() => undefined);
      }
    });
  });
}
