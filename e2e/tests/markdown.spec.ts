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
 * A real Claude CLI turn whose final is Markdown (the mock model's MDSAMPLE): the session page
 * shows the code block with its language and a working Copy, the table, the long block folded;
 * and a relative time on the page moves on by itself.
 */
for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test(`a Markdown final: language, Copy, table, folded long block; times tick (${viewport.width}px)`, async ({ signedInPage: page, state, saveShot }) => {
    test.setTimeout(300_000);
    await page.setViewportSize(viewport);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: state.baseURL });
    db ??= createDb(state.databaseUrl, { max: 2 });
    const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
    const folder = path.join(state.workDir, `markdown-${viewport.width}-${Date.now()}`);
    mkdirSync(folder, { recursive: true });
    const s = await createSession({ db }, { nodeId: node.id, executor: 'claude', folder });
    try {
      await page.goto(`/sessions/${s.id}`);
      await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });
      await page.getByTestId('message-input').fill('Please answer with MDSAMPLE');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(page.getByTestId('send-status')).toHaveText('Stored in the queue (#1).');

      const final = page.getByTestId('final').filter({ hasText: /MOCK-MD-\d+/ });
      await expect(final).toBeVisible({ timeout: 120_000 });
      await expect(final.getByRole('heading', { name: 'Result', level: 4 })).toBeVisible();

      // The fenced block says its language; Copy puts its code on the clipboard.
      const ts = final.locator('[data-testid="code-block"][data-lang="ts"]');
      await expect(ts.getByTestId('code-lang')).toHaveText('ts');
      await expect(ts.locator('code')).toContainText('const answer: number =');
      await ts.getByTestId('code-copy').click();
      await expect(ts.getByTestId('code-copy')).toHaveText('Copied');
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied).toMatch(/^const answer: number = \d+;\nconsole\.log\("answer", answer\);$/);
      // "Copied" is brief: the button goes back to its name.
      await expect(ts.getByTestId('code-copy')).toHaveText('Copy');

      // The table: header, cells, alignment, and markup in a cell shown as text.
      const table = final.locator('.md-table table');
      await expect(table.locator('thead th')).toHaveText(['Fruit', 'Count', 'Note']);
      await expect(table.locator('tbody tr').nth(0).locator('td')).toHaveText(['apples', '3', '<img src=x onerror=alert(1)>']);
      await expect(table.locator('tbody tr').nth(1).locator('td')).toHaveText(['pears', '12', 'ripe']);
      await expect(table.locator('tbody tr').nth(1).locator('td strong')).toHaveText('ripe');
      await expect(table.locator('tbody td').nth(1)).toHaveCSS('text-align', 'right');
      await expect(final.locator('img')).toHaveCount(0);
      await expect(final.locator('ol > li')).toHaveText(['first step', 'second step']);

      // The 40-line block is folded to its first lines, unfolds and folds again.
      const long = final.locator('[data-testid="code-block"][data-lang="text"]');
      await expect(long).toHaveAttribute('data-folded', 'true');
      await expect(long.locator('code')).toContainText('log line 20 of 40');
      await expect(long.locator('code')).not.toContainText('log line 21 of 40');
      const toggle = long.getByTestId('fold-toggle');
      await expect(toggle).toHaveText('Show all (40 lines)');
      await saveShot(page, `markdown-final-${viewport.width}`);
      await toggle.click();
      await expect(long).toHaveAttribute('data-folded', 'false');
      await expect(long.locator('code')).toContainText('log line 40 of 40');
      await expect(toggle).toHaveText('Show less');
      await expect(toggle).toHaveAttribute('aria-expanded', 'true');
      await saveShot(page, `markdown-unfolded-${viewport.width}`);
      await toggle.click();
      await expect(long.locator('code')).not.toContainText('log line 21 of 40');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);

      // A relative time names its absolute date in its title and moves on without a reload.
      await page.getByTestId('session-details').locator(':scope > summary').click();
      const created = page.getByTestId('session-details').locator('div:has(> dt:text-is("Created")) time');
      await expect(created).toHaveAttribute('title', new RegExp(String(new Date().getFullYear())));
      const iso = await created.getAttribute('datetime');
      const before = await created.textContent();
      expect(before).toMatch(/ago$/);
      await expect(created).not.toHaveText(before ?? '', { timeout: 90_000 });
      // Same timestamp, other words: the clock redrew it, not new data.
      await expect(created).toHaveAttribute('datetime', iso ?? '');
    } finally {
      await closeSession({ db }, { sessionId: s.id });
    }
  });
}
