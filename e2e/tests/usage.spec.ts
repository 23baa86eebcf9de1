import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { expect, test } from './fixtures.ts';

let db: Db;
test.afterAll(async () => {
  await db?.$disconnect();
});

const DAY = 86_400_000;

/**
 * The Usage page (issue 33) over stored turns: tokens per turn as the engine stores a `usage` event
 * (TurnUsage rows, cached tokens apart, with the model), a usage limit as a `limit_state` event
 * leaves it (UsageLimit). Two sessions of the local computer over three days; one model priced by
 * the table, one unknown (its cost is left out and said so). The limit is removed afterwards: it
 * would hold every Claude message of the local computer in the specs that follow.
 */
test('the Usage page: totals with the estimated cost, tokens per day, the limit per computer, totals per session; at 1440×900 and 390×844', async ({
  signedInPage: page,
  state,
  saveShot,
}) => {
  test.setTimeout(120_000);
  db ??= createDb(state.databaseUrl, { max: 2 });
  const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
  const sessions = [randomUUID(), randomUUID()];
  const now = Date.now();
  await db.session.createMany({
    data: sessions.map((id, i) => ({
      id,
      nodeId: node.id,
      executor: i === 0 ? ('claude' as const) : ('codex' as const),
      folder: path.join(state.workDir, `usage-${i}`),
      nativeSessionId: randomUUID(),
      state: 'Archived' as const,
      title: i === 0 ? 'Usage spec: refactor' : 'Usage spec: tests',
    })),
  });
  let eventId = BigInt(9_000_000_000 + Math.floor(Math.random() * 1_000_000));
  const turn = (sessionId: string, daysAgo: number, model: string, input: number, output: number, cacheRead: number, cacheWrite: number) => ({
    eventId: eventId++,
    sessionId,
    nodeId: node.id,
    executor: sessionId === sessions[0] ? ('claude' as const) : ('codex' as const),
    model,
    at: new Date(now - daysAgo * DAY),
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  });
  const resetsAt = new Date(now + 3 * 3_600_000);
  try {
    await db.turnUsage.createMany({
      data: [
        // Sonnet 4.5: 1M input ($3) + 100k output ($1.50) + 1M cache read ($0.30) + 200k cache write ($0.75).
        turn(sessions[0]!, 2, 'claude-sonnet-4-5-20250929', 1_000_000, 100_000, 1_000_000, 200_000),
        turn(sessions[0]!, 0, 'claude-sonnet-4-5-20250929', 500_000, 0, 0, 0),
        turn(sessions[1]!, 1, 'mock-model', 20_000, 1_000, 0, 0),
      ],
    });
    await db.usageLimit.create({
      data: {
        nodeId: node.id,
        executor: 'codex',
        reached: true,
        resetsAt,
        windows: [
          { name: 'primary', usedPercent: 100, windowMinutes: 300 },
          { name: 'secondary', usedPercent: 40, windowMinutes: 10080 },
        ],
        observedAt: new Date(now - 60_000),
      },
    });

    for (const viewport of [
      { width: 1440, height: 900 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      await page.goto('/');
      await page.getByRole('link', { name: 'Usage', exact: true }).first().click();
      await expect(page).toHaveURL(/\/usage$/);
      await expect(page.getByRole('heading', { name: 'Usage and cost' })).toBeVisible();
      // $3 + $1.50 + $0.30 + $0.75 + $1.50: the known model only, and "at least" because of the unknown one.
      await expect(page.getByTestId('usage-total')).toContainText('≥ $7.05');
      // Other specs' real turns (models without a price) add to this figure in a full run: only the model is checked.
      await expect(page.getByTestId('usage-unpriced')).toContainText('mock-model');
      await expect(page.getByTestId('usage-days-chart').locator('svg')).toHaveAttribute('aria-label', /Tokens per day over the last 30 days/);
      // One bar segment per day with turns.
      await expect.poll(() => page.getByTestId('usage-days-chart').locator('rect').count()).toBeGreaterThanOrEqual(3);
      const limit = page.getByTestId('usage-limit').filter({ hasText: 'Codex' });
      await expect(limit).toHaveAttribute('data-reached', 'true');
      await expect(limit).toContainText('limit reached, resets');
      await expect(limit).toContainText('5 h window: 100 % used');
      // Only this spec's sessions: other specs' sessions may be listed too in a full run.
      const rows = page.getByTestId('usage-sessions').locator('tbody tr').filter({ hasText: 'Usage spec:' });
      await expect(rows).toHaveCount(2);
      await expect(rows.first()).toContainText('Usage spec: refactor');
      await expect(rows.first()).toContainText('≈ $7.05');
      await expect(rows.nth(1)).toContainText('Usage spec: tests');
      await expect(rows.nth(1)).toContainText('—');
      // Nothing wider than the screen (the sessions table scrolls inside its own box).
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await saveShot(page, `usage-${viewport.width}`);
    }
    // The home page lists the limit under the computers.
    await page.goto('/');
    await expect(page.getByTestId('home-limits')).toContainText('limit reached, resets');
  } finally {
    await db.usageLimit.deleteMany({ where: { nodeId: node.id } });
    await db.turnUsage.deleteMany({ where: { sessionId: { in: sessions } } });
    await db.session.deleteMany({ where: { id: { in: sessions } } });
    await page.setViewportSize({ width: 1280, height: 720 });
  }
});
