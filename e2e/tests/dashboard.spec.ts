import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from './fixtures.ts';

test('the dashboard shows the local node online with its facts', async ({ signedInPage: page, saveShot }) => {
  const card = page.locator('[data-testid="node-card"][data-node-name="this computer"]');
  await expect(card.getByTestId('node-status')).toHaveText('Online');
  await expect(card).toContainText('This computer');
  await expect(card).toContainText('Agent version');
  await expect(card).toContainText('0.1.0');
  await expect(card.getByTestId('open-sessions')).toHaveText('0');
  await expect(card.getByRole('checkbox', { name: 'Claude Code' })).toBeChecked();
  await saveShot(page, 'dashboard');
  await page.setViewportSize({ width: 390, height: 844 });
  await saveShot(page, 'dashboard-phone');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await expect(page.getByTestId('language-switch')).toBeInViewport();
});

test('adding a computer shows its token and command once, and that command connects it', async ({ signedInPage: page, state, saveShot }) => {
  const name = `e2e box ${Date.now()}`;
  await page.getByRole('button', { name: 'Add a computer' }).click();
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Create token' }).click();

  const command = (await page.getByTestId('add-command').textContent()) ?? '';
  const token = (await page.getByTestId('add-token').textContent()) ?? '';
  expect(token).toMatch(/^bria_agent_[A-Za-z0-9_-]{43}$/);
  // One command: download the agent from the hub, check its SHA-256, keep the token in a 0600 file, start it.
  expect(command).toMatch(new RegExp(`curl -fsSL -o "\\$F\\.part" 'http://127\\.0\\.0\\.1:${state.hubPort}/agent/bria-agent-[0-9.]+-[0-9a-f]{8}\\.mjs'`));
  expect(command).toContain(`printf '%s\\n' '${token}' > "$D/token"`);
  expect(command).toContain(`exec node "$D/bria-agent.mjs" --hub 'ws://127.0.0.1:${state.hubPort}/agent' --token-file "$D/token"`);
  await expect(page.getByText('This token is shown only now')).toBeVisible();
  await saveShot(page, 'add-computer-token');

  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByTestId('new-token')).toHaveCount(0);
  const card = page.locator(`[data-testid="node-card"][data-node-name="${name}"]`);
  await expect(card.getByTestId('node-status')).toHaveText('Offline');
  await page.reload();
  await expect(card).toBeVisible();
  expect(await page.content()).not.toContain(token);
  const listed = await page.request.get('/api/trpc/nodes.list');
  expect(await listed.text()).not.toContain(token);

  // Run exactly what the dashboard said, as the user would on the other computer: pasted into a
  // shell, in a fresh HOME (the agent installs itself under it).
  const dir = mkdtempSync(path.join(tmpdir(), 'bria-e2e-added-'));
  let agent: ChildProcess | undefined;
  try {
    agent = spawn('bash', ['-s'], {
      cwd: dir,
      env: { ...process.env, HOME: dir, BRIA_TMUX_SOCKET: 'bria-e2e-added', LOG_LEVEL: 'warn' },
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
    agent.stdin?.end(`${command}\n`);
    await expect(card.getByTestId('node-status')).toHaveText('Online', { timeout: 20_000 });

    // Revoking its token from the dashboard disconnects it.
    await card.getByText('Agent tokens (1)').click();
    await card.getByRole('button', { name: 'Revoke' }).click();
    // Asked in place (no browser dialog), like Close.
    await card.getByRole('button', { name: 'Yes, revoke' }).click();
    await expect(card.getByTestId('node-status')).toHaveText('Offline', { timeout: 15_000 });
    await expect(card.getByText('Agent tokens (0)')).toBeVisible();
  } finally {
    if (agent?.pid)
      try {
        process.kill(-agent.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    rmSync(dir, { recursive: true, force: true });
  }
});

test('health and the node list follow the hub going down and coming back', async ({ signedInPage: page, state, request }) => {
  const card = page.locator('[data-testid="node-card"][data-node-name="this computer"]');
  await expect(card.getByTestId('node-status')).toHaveText('Online');
  try {
    expect((await request.post(`${state.controlURL}/hub/stop`)).status()).toBe(204);
    const down = await request.get('/api/health');
    expect(down.status()).toBe(503);
    expect(await down.json()).toMatchObject({ ok: false, db: true, hub: false, nodesOnline: 0 });
    await expect(card.getByTestId('node-status')).toHaveText('Offline');
  } finally {
    expect((await request.post(`${state.controlURL}/hub/start`)).status()).toBe(204);
  }
  // The agent reconnects on its own (its backoff can take a few seconds).
  await expect(card.getByTestId('node-status')).toHaveText('Online', { timeout: 20_000 });
  await expect.poll(async () => (await request.get('/api/health')).status(), { timeout: 10_000 }).toBe(200);
});

test('a computer whose agent is older than the one this server hands out says so, with the command that updates it', async ({ signedInPage: page, state }) => {
  const { createDb } = await import('@bria/core/db');
  const db = createDb(state.databaseUrl, { max: 1 });
  const name = `old agent ${Date.now()}`;
  try {
    await page.getByRole('button', { name: 'Add a computer' }).click();
    await page.getByLabel('Name').fill(name);
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect(page.getByTestId('add-command')).toBeVisible();
    // As its hello would have stored it: an agent of an earlier release.
    await db.node.updateMany({ where: { name }, data: { agentVersion: '0.0.1-00000000' } });
    await page.goto('/');
    const card = page.locator(`[data-testid="node-card"][data-node-name="${name}"]`);
    await expect(card.getByTestId('agent-outdated')).toBeVisible();
    await expect(card.getByTestId('agent-update')).toContainText(/curl .*\/agent\/bria-agent-.*\.mjs/);
    // This computer's own agent is current: no such line.
    await expect(page.locator('[data-testid="node-card"][data-node-name="this computer"]').getByTestId('agent-outdated')).toHaveCount(0);
  } finally {
    await db.$disconnect();
  }
});
