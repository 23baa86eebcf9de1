import { expect, test } from './fixtures.ts';

test("a computer card shows each CLI's version, and says when this Bria was not verified with it", async ({ signedInPage: page, state }) => {
  const { createDb } = await import('@bria/core/db');
  const { VERIFIED_CLI_VERSIONS } = await import('@bria/core/protocol');
  const db = createDb(state.databaseUrl, { max: 1 });
  const name = `cli versions ${Date.now()}`;
  try {
    // This computer's agent runs the pinned CLIs: verified, no warning.
    const own = page.locator('[data-testid="node-card"][data-node-name="this computer"]');
    await expect(own.locator('[data-executor="claude"]').getByTestId('cli-version')).toHaveText(VERIFIED_CLI_VERSIONS.claude.at(-1) ?? '');
    await expect(own.getByTestId('cli-unverified')).toHaveCount(0);

    await page.getByRole('button', { name: 'Add a computer' }).click();
    await page.getByLabel('Name').fill(name);
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect(page.getByTestId('add-command')).toBeVisible();
    // As its agent's hello would have stored it: a newer Claude Code than any verified one.
    await db.node.updateMany({
      where: { name },
      data: { agentVersion: '0.1.0', executorVersions: ['claude:2.1.300', `codex:${VERIFIED_CLI_VERSIONS.codex[0]}`] },
    });
    await page.goto('/');
    const card = page.locator(`[data-testid="node-card"][data-node-name="${name}"]`);
    const claude = card.locator('[data-executor="claude"]');
    await expect(claude).toContainText(`Claude Code 2.1.300 — not verified with this Bria; verified: ${VERIFIED_CLI_VERSIONS.claude.join(', ')}`);
    // Not refused: still installed and offered.
    await expect(claude.getByRole('checkbox')).toBeEnabled();
    await expect(card.locator('[data-executor="codex"]').getByTestId('cli-version')).toHaveAttribute('data-verified', 'true');
    await expect(card.locator('[data-executor="codex"]').getByTestId('cli-unverified')).toHaveCount(0);
  } finally {
    await db.$disconnect();
  }
});
