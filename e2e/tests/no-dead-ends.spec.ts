import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDb, type Db } from '@bria/core/db';
import { closeSession, createSession } from '@bria/core/services';
import { readState } from '../support/state.ts';
import { expect, test } from './fixtures.ts';

// Issue 16, the remaining dead ends: signing in with `npm run login`, removing and enrolling a
// computer again with the real install command, and a real restart of the dashboard's process.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = Date.now().toString(36);
const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
] as const;

let db: Db;
test.beforeAll(() => {
  db = createDb(readState().databaseUrl, { max: 2 });
});
test.afterAll(async () => {
  await db?.$disconnect();
});

/** Runs a command to its end; its output, and a clear failure with it when it exits non-zero. */
function runToEnd(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} exited ${code}:\n${out}`))));
  });
}

/**
 * The install command as a person pastes it into a terminal on the other computer: `sh -c`, with
 * its own HOME (the agent's data folder lives there). Its own process group, so it can be stopped
 * the way Ctrl-C stops it.
 */
function pasteInTerminal(command: string, home: string): { child: ChildProcess; output: () => string; stop: () => Promise<void> } {
  const child = spawn('sh', ['-c', command], { cwd: home, env: { PATH: process.env.PATH, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d));
  child.stderr?.on('data', (d: Buffer) => (out += d));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const force = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
      }, 5_000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      try {
        process.kill(-child.pid!, 'SIGINT');
      } catch {
        resolve();
      }
    });
  return { child, output: () => out, stop };
}

for (const viewport of VIEWPORTS) {
  test(`npm run login prints a link that signs a fresh browser in once (${viewport.width}px)`, async ({ browser, state, saveShot }) => {
    test.setTimeout(60_000);
    // The real script against the e2e server's database (DATABASE_URL), links on its address.
    const out = await runToEnd(process.execPath, ['--import', 'tsx', 'scripts/login.ts'], { DATABASE_URL: state.databaseUrl, BRIA_PUBLIC_URL: state.baseURL });
    expect(out).toContain('Open this link to sign in to the dashboard');
    const link = out.match(/https?:\/\/\S+\/login\?token=\S+/)?.[0];
    expect(link, out).toBeTruthy();
    expect(link!.startsWith(`${state.baseURL}/login?token=`)).toBe(true);

    const first = await browser.newContext({ baseURL: state.baseURL, viewport });
    try {
      const page = await first.newPage();
      await page.goto(link!);
      await expect(page).toHaveURL(/\/$/);
      await expect(page.getByRole('heading', { name: 'Open sessions' })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Sign out' })).toBeAttached();
      await saveShot(page, `npm-run-login-${viewport.width}`);
    } finally {
      await first.close();
    }

    const second = await browser.newContext({ baseURL: state.baseURL, viewport });
    try {
      const page = await second.newPage();
      await page.goto(link!);
      await expect(page).toHaveURL(/\/signin\?reason=login\.used$/);
      await expect(page.getByTestId('login-refused')).toHaveText(/This login link has already been used\./);
      expect((await second.cookies()).some((c) => c.name === 'bria_session')).toBe(false);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    } finally {
      await second.close();
    }
  });
}

for (const viewport of VIEWPORTS) {
  test(`a computer removed from its card keeps its sessions in the archive, and enrolls again with the install command (${viewport.width}px)`, async ({
    signedInPage: page,
    saveShot,
  }) => {
    test.setTimeout(150_000);
    await page.setViewportSize(viewport);
    const name = `studio ${run} ${viewport.width}`;
    const home = mkdtempSync(path.join(tmpdir(), 'bria-e2e-other-computer-'));
    const terminals: ReturnType<typeof pasteInTerminal>[] = [];
    const enroll = async () => {
      await page.getByRole('button', { name: 'Add a computer' }).click();
      // This hub listens on 127.0.0.1 only: the dialog says so before anything is created.
      const warning = page.getByTestId('reach-warning');
      await expect(warning).toHaveAttribute('data-reach', 'listens-locally');
      await expect(warning).toContainText('Other computers cannot reach this Bria: it listens on 127.0.0.1 only');
      // Only the agents' port goes on the network, with TLS (issue 30): never a plain http:// suggestion.
      await expect(warning).toContainText('BRIA_HUB_HOST=0.0.0.0');
      await expect(warning).toContainText('BRIA_HUB_PUBLIC_URL=wss://');
      await expect(warning).not.toContainText('http://');
      await page.getByLabel('Name').fill(name);
      await page.getByRole('button', { name: 'Create token' }).click();
      const command = (await page.getByTestId('add-command').textContent()) ?? '';
      expect(command).toMatch(/curl .*\/agent\/bria-agent-/);
      await saveShot(page, `add-computer-${viewport.width}`);
      await page.getByRole('button', { name: 'Done' }).click();
      const terminal = pasteInTerminal(command, home);
      terminals.push(terminal);
      const card = page.locator(`[data-testid="node-card"][data-node-name="${name}"]`);
      await expect(card.getByTestId('node-status'), terminal.output()).toHaveText('Online', { timeout: 60_000 });
      return card;
    };
    try {
      const card = await enroll();
      const node = await db.node.findFirstOrThrow({ where: { name, removedAt: null } });
      const archived = await db.session.create({
        data: {
          id: randomUUID(),
          nodeId: node.id,
          executor: 'claude',
          folder: '/srv/studio',
          nativeSessionId: randomUUID(),
          state: 'Archived',
          title: `studio-work-${run}-${viewport.width}`,
          archivedAt: new Date(),
          archiveSortAt: new Date(),
        },
      });

      // Removal asks in place, then the card goes.
      await card.getByText('Token and removal').click();
      await card.getByTestId('remove-computer').click();
      await expect(card.getByTestId('inline-confirm')).toContainText('Remove this computer?');
      await card.getByRole('button', { name: 'Yes, remove' }).click();
      await expect(card).toHaveCount(0);
      // Its agent is cut off: its token no longer works.
      expect(await db.agentToken.count({ where: { nodeId: node.id, revokedAt: null } })).toBe(0);
      await expect.poll(async () => (await db.node.findUniqueOrThrow({ where: { id: node.id } })).online, { timeout: 20_000 }).toBe(false);

      await page.getByRole('link', { name: 'Archive' }).click();
      await page.getByTestId('archive-search').fill(`studio-work-${run}-${viewport.width}`);
      const row = page.getByTestId('archived-session');
      await expect(row).toHaveCount(1);
      await expect(row).toHaveAttribute('data-session-id', archived.id);
      await expect(row).toContainText(`${name} (removed computer)`);
      await saveShot(page, `archive-removed-computer-${viewport.width}`);

      // The person stops the old agent (Ctrl-C) and enrolls the computer again from home.
      await terminals[0]!.stop();
      await page.goto('/');
      await expect(page.getByRole('heading', { name: 'Open sessions' })).toBeVisible();
      const again = await enroll();
      await expect(again).toHaveCount(1);
      const renewed = await db.node.findFirstOrThrow({ where: { name, removedAt: null } });
      expect(renewed.id).not.toBe(node.id);
      expect(renewed.online).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    } finally {
      for (const t of terminals) await t.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });
}

for (const viewport of VIEWPORTS) {
  test(`a session page rides out a real restart of the dashboard's server (${viewport.width}px)`, async ({
    signedInPage: page,
    state,
    webServer,
    saveShot,
  }) => {
    test.setTimeout(240_000);
    await page.setViewportSize(viewport);
    const local = await db.node.findFirstOrThrow({ where: { isLocal: true } });
    const folder = path.join(state.workDir, `restart-${run}-${viewport.width}`);
    mkdirSync(folder, { recursive: true });
    const s = await createSession({ db }, { nodeId: local.id, folder, executor: 'claude' });
    try {
      await page.goto(`/sessions/${s.id}`);
      await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 90_000 });
      await page.getByTestId('message-input').fill('Before the restart');
      await page.getByRole('button', { name: 'Send' }).click();
      const firstFinal = page.getByTestId('turn').nth(0).getByTestId('final');
      await expect(firstFinal).toContainText('Before the restart', { timeout: 90_000 });
      await expect(page.getByTestId('live-status')).toHaveText('Live');
      // Marks this very document: a reload would lose it.
      await page.evaluate(() => {
        (window as unknown as { briaNoReload: boolean }).briaNoReload = true;
      });

      await webServer.stop();
      // Down: the banner says so, and what was on screen stays.
      await expect(page.getByTestId('reconnecting')).toBeVisible({ timeout: 20_000 });
      await expect(page.getByTestId('reconnecting')).toContainText('Reconnecting');
      await expect(firstFinal).toContainText('Before the restart');
      await expect(page.getByTestId('message-input')).toBeVisible();
      await saveShot(page, `restart-down-${viewport.width}`);

      await webServer.start();
      // Back by itself: no reload, the banner goes and live updates flow again.
      await expect(page.getByTestId('reconnecting')).toHaveCount(0, { timeout: 60_000 });
      await expect(page.getByTestId('live-status')).toHaveText('Live');
      expect(await page.evaluate(() => (window as unknown as { briaNoReload?: boolean }).briaNoReload)).toBe(true);
      await page.getByTestId('message-input').fill('After the restart');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(page.getByTestId('turn').nth(1).getByTestId('final')).toContainText('After the restart', { timeout: 90_000 });
      await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready');
      await saveShot(page, `restart-recovered-${viewport.width}`);
    } finally {
      await closeSession({ db }, { sessionId: s.id }).catch(() => undefined);
    }
  });
}

for (const viewport of VIEWPORTS) {
  test(`settings and Add a computer follow the configuration the server runs with (${viewport.width}px)`, async ({
    signedInPage: page,
    webServer,
    saveShot,
  }) => {
    test.setTimeout(120_000);
    await page.setViewportSize(viewport);
    const usersField = page.getByLabel('Telegram users allowed to use the bot');
    // As npm start runs it when it started the bot (BRIA_TELEGRAM_BOT=1), and when the hub listens on
    // every address (BRIA_HOST=0.0.0.0) while the command still names 127.0.0.1 (BRIA_HUB_PUBLIC_URL).
    await webServer.stop();
    await webServer.start({ env: { BRIA_TELEGRAM_BOT: '1', BRIA_HOST: '0.0.0.0' } });
    await page.goto('/settings');
    await expect(usersField).toBeVisible();
    await saveShot(page, `settings-bot-on-${viewport.width}`);
    await page.goto('/');
    await page.getByRole('button', { name: 'Add a computer' }).click();
    const warning = page.getByTestId('reach-warning');
    await expect(warning).toHaveAttribute('data-reach', 'local-address');
    await expect(warning).toContainText('The command below connects to 127.0.0.1, which on another computer means that computer itself.');
    await expect(warning).toContainText('Set BRIA_HUB_PUBLIC_URL');
    await expect(warning).not.toContainText('http://');
    await page.getByRole('button', { name: 'Cancel' }).click();

    // The launcher's record wins: it did not start a bot, so a token in the environment shows nothing.
    await webServer.stop();
    await webServer.start({ env: { BRIA_TELEGRAM_BOT: '0', TELEGRAM_BOT_TOKEN: '123456:abcdefghijklmnop' } });
    await page.goto('/settings');
    await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
    await expect(page.getByTestId('settings-loading')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeVisible();
    await expect(usersField).toHaveCount(0);
    await page.goto('/');
    await page.getByRole('button', { name: 'Add a computer' }).click();
    await expect(page.getByTestId('reach-warning')).toHaveAttribute('data-reach', 'listens-locally');
  });
}
