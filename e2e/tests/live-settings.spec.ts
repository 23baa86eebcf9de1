import { randomUUID } from 'node:crypto';
import { createDb, type Db } from '@bria/core/db';
import { getSettings, resumeRecommendations, updateSettings } from '@bria/core/services';
import { expect, test } from './fixtures.ts';

let db: Db;
test.beforeEach(({ state }) => {
  db ??= createDb(state.databaseUrl, { max: 2 });
});
test.afterAll(async () => {
  await updateSettings({ db }, { resumeRecommendations: false, lifetime: '12h' });
  await db?.$disconnect();
});

const localNode = async () => (await db.node.findFirstOrThrow({ where: { isLocal: true } })).id;

test('without login every new API is refused, the live stream too', async ({ request }) => {
  const nodeId = await localNode();
  const input = encodeURIComponent(JSON.stringify({ nodeId }));
  for (const url of [
    `/api/trpc/sessions.listOpen?input=${input}`,
    `/api/trpc/archive.list?input=${input}`,
    '/api/trpc/settings.get',
    '/api/trpc/live.changes',
  ]) {
    const res = await request.get(url);
    expect(res.status(), url).toBe(401);
  }
  const create = await request.post('/api/trpc/sessions.create', { data: { nodeId, folder: '/tmp' } });
  expect(create.status()).toBe(401);
  const settings = await request.post('/api/trpc/settings.update', { data: { resumeRecommendations: true } });
  expect(settings.status()).toBe(401);
  expect((await getSettings({ db })).resumeRecommendations).toBe(false);
  const page = await request.get(`/nodes/${nodeId}`, { maxRedirects: 0 });
  expect([307, 302, 303]).toContain(page.status());
});

test('a change in another tab, and one written by the hub, appear without a reload', async ({ signedInPage: page, context, saveShot }) => {
  const nodeId = await localNode();
  const card = page.locator('[data-testid="node-card"][data-node-name="this computer"]');
  await expect(page.getByTestId('live-status')).toHaveText('Live');
  await expect(card.getByRole('checkbox', { name: 'Codex' })).toBeChecked();
  await page.evaluate(() => {
    (window as unknown as { notReloaded: boolean }).notReloaded = true;
  });

  const other = await context.newPage();
  try {
    // The computer's own page carries its card (Settings no longer repeats the cards).
    await other.goto(`/nodes/${nodeId}`);
    const otherCard = other.locator('[data-testid="node-card"][data-node-name="this computer"]');
    // The box follows the server (it changes once the mutation is stored), so click, then watch.
    await otherCard.getByRole('checkbox', { name: 'Codex' }).click();
    await expect(card.getByRole('checkbox', { name: 'Codex' })).not.toBeChecked();
    expect((await db.node.findUniqueOrThrow({ where: { id: nodeId } })).enabledExecutors).toEqual(['claude']);
    await otherCard.getByRole('checkbox', { name: 'Codex' }).click();
    await expect(card.getByRole('checkbox', { name: 'Codex' })).toBeChecked();
  } finally {
    await other.close();
    await db.node.update({ where: { id: nodeId }, data: { enabledExecutors: ['claude', 'codex'] } });
  }

  // A session record written straight to the database, as discovery on the node does through the hub.
  await page.goto(`/nodes/${nodeId}`);
  await page.evaluate(() => {
    (window as unknown as { notReloaded: boolean }).notReloaded = true;
  });
  const marker = `discovered-${randomUUID().slice(0, 8)}`;
  await db.session.create({
    data: {
      id: randomUUID(),
      nodeId,
      executor: 'codex',
      folder: `/home/someone/${marker}`,
      nativeSessionId: marker,
      state: 'Archived',
      launchSource: 'discovered',
      title: `Found by hand ${marker}`,
      archiveSortAt: new Date(Date.now() + 3600_000),
    },
  });
  await expect(page.getByTestId('archived-session').filter({ hasText: marker })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  await saveShot(page, 'node-sessions-live');
});

test('settings: saved from the page, and the bot reads the same values (lifetime, resume suggestions)', async ({ signedInPage: page, state, saveShot }) => {
  const nodeId = await localNode();
  const folder = `${state.workDir}/recs-${Date.now()}`;
  await db.session.create({
    data: {
      id: randomUUID(),
      nodeId,
      executor: 'claude',
      folder,
      nativeSessionId: randomUUID(),
      state: 'Archived',
      title: 'An earlier one',
      archiveSortAt: new Date(),
    },
  });
  expect(await resumeRecommendations({ db }, { nodeId, executor: 'claude', folder })).toEqual({ enabled: false, items: [] });

  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
  await expect(page.getByRole('radio', { name: '12 hours' })).toBeChecked();
  await page.getByRole('radio', { name: '24 hours' }).check();
  await page.getByLabel('Suggest resuming earlier sessions when creating one').check();
  // No bot runs with this dashboard (no TELEGRAM_BOT_TOKEN): the Telegram users field is not offered.
  await expect(page.getByLabel('Telegram users allowed to use the bot')).toHaveCount(0);
  // Nor are the computers' cards repeated here.
  await expect(page.getByTestId('node-card')).toHaveCount(0);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('settings-status')).toHaveText('Saved.');
  await saveShot(page, 'settings');
  await page.setViewportSize({ width: 390, height: 844 });
  await saveShot(page, 'settings-phone');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1280, height: 720 });

  // The bot's /new flow and its allow-list read these through the same services.
  expect(await getSettings({ db })).toMatchObject({ lifetime: '24h', resumeRecommendations: true, allowedTelegramUsers: [] });
  const recs = await resumeRecommendations({ db }, { nodeId, executor: 'claude', folder });
  expect(recs.enabled).toBe(true);
  expect(recs.items.map((s) => s.title)).toEqual(['An earlier one']);

  // And the dashboard's own new-session step now offers it.
  await page.goto(`/nodes/${nodeId}/new`);
  await page.getByRole('radio', { name: 'Claude Code' }).check();
  await page.getByLabel('Working folder (absolute path)').fill(folder);
  await expect(page.getByTestId('resume-suggestions')).toContainText('An earlier one');
  await saveShot(page, 'new-session-suggestions');

  await page.goto('/settings');
  await page.getByLabel('Suggest resuming earlier sessions when creating one').uncheck();
  await page.getByRole('radio', { name: '12 hours' }).check();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('settings-status')).toHaveText('Saved.');
  expect((await resumeRecommendations({ db }, { nodeId, executor: 'claude', folder })).enabled).toBe(false);
});

test("the signed-in pages speak Russian to a Russian browser, with the bot's words for states and agents", async ({
  browser,
  state,
  newLoginLink,
  saveShot,
}) => {
  const context = await browser.newContext({ locale: 'ru-RU', baseURL: state.baseURL });
  try {
    const page = await context.newPage();
    await page.goto(await newLoginLink());
    await expect(page.getByRole('heading', { name: 'Компьютеры' })).toBeVisible();
    await page.getByRole('link', { name: 'Настройки' }).click();
    await expect(page.getByRole('heading', { name: 'Настройки' })).toBeVisible();
    await expect(page.getByRole('radio', { name: '12 ч' })).toBeChecked();
    await page.goto(`/nodes/${await localNode()}`);
    await expect(page.getByRole('heading', { name: 'Архив' })).toBeVisible();
    await expect(page.getByTestId('archived-session').first()).toContainText(/Claude Code|Codex/);
    await saveShot(page, 'node-sessions-ru');
  } finally {
    await context.close();
  }
});
