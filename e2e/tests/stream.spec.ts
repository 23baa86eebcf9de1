import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { createSession } from '@bria/core/services';
import { expect, test } from './fixtures.ts';

let db: Db;
test.afterAll(async () => {
  await db?.$disconnect();
});

/**
 * Issue 31 with the real CLIs (mock model: a SLOWLINES answer of 40 lines, 250 ms apart): the answer
 * visibly grows on the session page as a draft "being written", the journal's final replaces it, and
 * the live terminal shows the pane and follows it; typing is refused while a permission dialog is open.
 */
for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test.describe(`${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });
    for (const executor of ['claude', 'codex'] as const) {
      test(`${executor}: the answer grows, the final replaces it, the terminal follows the pane`, async ({ signedInPage: page, state, saveShot }) => {
        test.setTimeout(240_000);
        db ??= createDb(state.databaseUrl, { max: 2 });
        const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
        const folder = path.join(state.workDir, `stream-${executor}-${viewport.width}-${Date.now()}`);
        mkdirSync(folder, { recursive: true });
        const s = await createSession({ db }, { nodeId: node.id, executor, folder });
        await page.goto(`/sessions/${s.id}`);
        await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });

        // The terminal: the pane as it is, sized to it.
        await page.getByTestId('terminal').locator('summary').click();
        const rows = page.locator('[data-testid="terminal-box"] .xterm-rows');
        // xterm.js draws only while it is on screen (below the composer on a phone): look at it as a person would.
        const terminalText = async () => {
          await page.getByTestId('terminal-box').scrollIntoViewIfNeeded();
          return (await rows.textContent()) ?? '';
        };
        await expect.poll(terminalText, { timeout: 30_000 }).toContain('for shortcuts');

        // Every draft text the page shows, recorded by the page itself as it changes.
        await page.evaluate(() => {
          const seen: string[] = [];
          (window as unknown as { __drafts: string[] }).__drafts = seen;
          new MutationObserver(() => {
            const d = document.querySelector('[data-testid="draft"] .plain')?.textContent ?? null;
            if (d !== null && d !== seen.at(-1)) seen.push(d);
          }).observe(document.body, { subtree: true, childList: true, characterData: true });
        });
        const marker = `SLOWLINES stream ${executor} ${Date.now()}`;
        await page.getByTestId('message-input').fill(marker);
        await page.getByRole('button', { name: 'Send' }).click();
        await expect(page.getByTestId('draft')).toBeVisible({ timeout: 60_000 });
        await expect(page.getByTestId('draft')).toContainText('being written');
        await saveShot(page, `stream-draft-${executor}-${viewport.width}`);
        // The terminal follows the pane while the answer is drawn.
        await expect.poll(terminalText, { timeout: 60_000 }).toContain('line 3 of 40');

        const final = page.getByTestId('final').last();
        await expect(final).toContainText('line 40 of 40', { timeout: 120_000 });
        await expect(page.getByTestId('draft')).toHaveCount(0);
        const drafts = await page.evaluate(() => (window as unknown as { __drafts: string[] }).__drafts);
        expect(drafts.length).toBeGreaterThanOrEqual(3);
        for (const [i, d] of drafts.entries()) if (i > 0) expect(d.length).toBeGreaterThan(drafts[i - 1]!.length);
        // The final is the journal's, stored byte for byte; the page shows it, not the draft.
        const msg = await db.message.findFirstOrThrow({ where: { sessionId: s.id, text: marker } });
        expect(msg.finalText).toMatch(new RegExp(`^MOCK-REPLY-\\d+: you said "${marker}" \\[1/40\\]\\nline 2 of 40`));
        expect(msg.finalText!.endsWith('line 40 of 40 of the slow answer')).toBe(true);
        await expect(final).toContainText(msg.finalText!.split('\n')[0]!);

        if (executor === 'claude') {
          // A permission dialog Bria tracks: the switch to type is off and cannot be turned on.
          await page.getByTestId('message-input').fill(`please TOOLBASH-t${Date.now()} now`);
          await page.getByRole('button', { name: 'Send' }).click();
          await expect(page.getByTestId('prompt')).toBeVisible({ timeout: 120_000 });
          await expect(page.getByTestId('terminal-type')).toBeDisabled();
          await expect(page.getByTestId('terminal-dialog-note')).toBeVisible();
          await saveShot(page, `stream-terminal-dialog-${viewport.width}`);
        }
      });
    }
  });
}
