import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createDb, createNodeWithToken, type Db } from '@bria/core/db';
import { closeSession, createSession } from '@bria/core/services';
import { readState } from '../support/state.ts';
import { expect, test } from './fixtures.ts';

// Issue 16: the dashboard as the place people work. Sessions seeded in the database belong to
// computers that never connect (no CLI runs for them); the chat test runs the real Claude CLI.
test.use({ viewport: { width: 1440, height: 900 } });

let db: Db;
const run = Date.now().toString(36);
const nodes: { alpha: string; beta: string } = { alpha: '', beta: '' };
test.beforeAll(async () => {
  db = createDb(readState().databaseUrl, { max: 2 });
  nodes.alpha = (await createNodeWithToken(db, { name: `alpha ${run}` })).nodeId;
  nodes.beta = (await createNodeWithToken(db, { name: `beta ${run}` })).nodeId;
});
test.afterAll(async () => {
  await db?.$disconnect();
});

const openSession = (o: { nodeId: string; executor: 'claude' | 'codex'; title: string; state?: 'Ready' | 'Running'; minutesAgo: number }) =>
  db.session.create({
    data: {
      id: randomUUID(),
      nodeId: o.nodeId,
      executor: o.executor,
      folder: `/srv/${o.title}`,
      nativeSessionId: randomUUID(),
      state: o.state ?? 'Ready',
      // Both started long ago: the order comes from the last activity the journal showed.
      title: o.title,
      createdAt: new Date(Date.now() - 120 * 60_000),
      nativeLastActivity: new Date(Date.now() - o.minutesAgo * 60_000),
    },
  });

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test(`home lists the open sessions of every computer, newest first, with filters (${viewport.width}px)`, async ({ signedInPage: page, saveShot }) => {
    await page.setViewportSize(viewport);
    const tag = `${run}-${viewport.width}`;
    // The newer one is written first, so neither insertion order nor id decides the order seen.
    const b = await openSession({ nodeId: nodes.beta, executor: 'codex', title: `newer-${tag}`, minutesAgo: 1 });
    const a = await openSession({ nodeId: nodes.alpha, executor: 'claude', title: `older-${tag}`, minutesAgo: 30 });
    await page.reload();
    const list = page.getByTestId('all-sessions');
    const rowA = list.locator(`[data-session-id="${a.id}"]`);
    const rowB = list.locator(`[data-session-id="${b.id}"]`);
    await expect(rowA).toContainText(`alpha ${run}`);
    await expect(rowA).toContainText('Claude Code');
    await expect(rowB).toContainText(`beta ${run}`);
    await expect(rowB).toContainText('Codex');
    // Newest activity first.
    const order = await list.getByTestId('open-session').evaluateAll((els) => els.map((e) => e.getAttribute('data-session-id')));
    expect(order.indexOf(b.id)).toBeLessThan(order.indexOf(a.id));
    // The computers' status is beside the list.
    await expect(page.locator(`[data-testid="node-card"][data-node-name="beta ${run}"]`).getByTestId('node-status')).toHaveText('Offline');
    await saveShot(page, `home-${viewport.width}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);

    const filters = page.getByTestId('session-filters');
    await filters.getByLabel('Computer').selectOption({ label: `beta ${run}` });
    await expect(rowA).toHaveCount(0);
    await expect(rowB).toBeVisible();
    await filters.getByLabel('Computer').selectOption('');
    await filters.getByLabel('Agent').selectOption('claude');
    await expect(rowB).toHaveCount(0);
    await expect(rowA).toBeVisible();
    await filters.getByLabel('State').selectOption('working');
    await expect(rowA).toHaveCount(0);
    await filters.getByLabel('State').selectOption('ready');
    await expect(rowA).toBeVisible();
    await db.session.updateMany({ where: { id: { in: [a.id, b.id] } }, data: { state: 'Archived', archivedAt: new Date(), archiveSortAt: new Date() } });
  });
}

test('a background session that finishes shows a toast with a link', async ({ signedInPage: page }) => {
  const s = await openSession({ nodeId: nodes.alpha, executor: 'claude', title: `toast-${run}`, state: 'Running', minutesAgo: 0 });
  await page.reload();
  await expect(page.getByTestId('all-sessions').locator(`[data-session-id="${s.id}"] [data-testid="session-state"]`)).toHaveAttribute('data-state', 'Running');
  await db.session.update({ where: { id: s.id }, data: { state: 'Ready', version: { increment: 1 } } });
  const toast = page.getByTestId('toast').filter({ hasText: `toast-${run}` });
  await expect(toast).toBeVisible();
  await toast.getByRole('link', { name: 'Open' }).click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${s.id}$`));
  await db.session.update({ where: { id: s.id }, data: { state: 'Archived', archivedAt: new Date(), archiveSortAt: new Date() } });
});

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test(`the archive across computers finds a word from a later message and marks it (${viewport.width}px)`, async ({ signedInPage: page, saveShot }) => {
    await page.setViewportSize(viewport);
    const word = `quokka${run}${viewport.width}`;
    const id = randomUUID();
    await db.session.create({
      data: {
        id,
        nodeId: nodes.beta,
        executor: 'claude',
        folder: '/srv/zoo',
        nativeSessionId: randomUUID(),
        state: 'Archived',
        title: `Zoo ${viewport.width}`,
        firstPrompt: 'set up the zoo',
        archivedAt: new Date(),
        archiveSortAt: new Date(),
      },
    });
    await db.message.createMany({
      data: [
        { id: randomUUID(), sessionId: id, seq: 1, source: 'web', text: 'set up the zoo', finalText: 'Done.', status: 'completed' },
        {
          id: randomUUID(),
          sessionId: id,
          seq: 2,
          source: 'web',
          text: 'now the <b>feeding</b> plan',
          finalText: `I wrote the ${word} feeding plan.`,
          status: 'completed',
        },
      ],
    });
    await page.getByRole('link', { name: 'Archive' }).click();
    await expect(page.getByRole('heading', { name: 'Archive', level: 1 })).toBeVisible();
    await page.getByTestId('archive-search').fill(word);
    const hit = page.getByTestId('archived-session');
    await expect(hit).toHaveCount(1);
    await expect(hit).toHaveAttribute('data-session-id', id);
    await expect(hit.getByTestId('row-computer')).toHaveText(`beta ${run}`);
    await expect(hit.locator('mark')).toHaveText(word);
    await expect(hit.getByTestId('archive-snippet')).toContainText('feeding plan');
    await saveShot(page, `archive-search-${viewport.width}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    // The computer filter narrows to one computer's archive.
    await page.getByTestId('archive-computer').selectOption({ label: `alpha ${run}` });
    await expect(page.getByText('Nothing in the archive matches.')).toBeVisible();
    await page.getByTestId('archive-computer').selectOption({ label: `beta ${run}` });
    await expect(hit).toHaveCount(1);
  });
}

test('the session page on a phone: the latest answer is on screen right above the composer after sending', async ({ signedInPage: page, state, saveShot }) => {
  test.setTimeout(180_000);
  const local = await db.node.findFirstOrThrow({ where: { isLocal: true } });
  const folder = path.join(state.workDir, `chat-${run}`);
  mkdirSync(folder, { recursive: true });
  const s = await createSession({ db }, { nodeId: local.id, folder, executor: 'claude' });
  try {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/sessions/${s.id}`);
    await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 90_000 });
    // The evidence timeline and the queue are one click away, collapsed; the words are people's words.
    await expect(page.getByTestId('session-details')).not.toHaveAttribute('open', /.*/);
    await expect(page.getByTestId('evidence-row').first()).toBeHidden();
    // Three turns make the page longer than the phone's screen; the test never scrolls.
    let final = page.locator('[data-testid="turn"]').last().getByTestId('final');
    for (const n of [1, 2, 3]) {
      await page.getByTestId('message-input').fill(`Hello from a phone, message ${n}`);
      await page.getByRole('button', { name: 'Send' }).click();
      final = page
        .locator('[data-testid="turn"]')
        .nth(n - 1)
        .getByTestId('final');
      await expect(final).toContainText(`message ${n}`, { timeout: 90_000 });
    }
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeGreaterThan(844 + 200);
    await expect(page.getByText('Waiting for the answer…')).toHaveCount(0);
    // No scrolling by the test: the answer is in the viewport and not under the sticky composer.
    await expect(final).toBeInViewport();
    await expect
      .poll(async () => {
        const f = await final.boundingBox();
        const c = await page.getByTestId('message-input').boundingBox();
        return f !== null && c !== null && f.y + Math.min(f.height, 20) <= c.y;
      })
      .toBe(true);
    await saveShot(page, 'session-chat-phone');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.getByTestId('session-details').locator(':scope > summary').click();
    const created = page.locator('[data-testid="evidence-row"][data-event="create"]');
    await expect(created).toContainText('You started the session.');
    await expect(page.locator('[data-testid="evidence-row"] [data-testid="evidence-words"]').filter({ hasText: /_/ })).toHaveCount(0);
  } finally {
    await closeSession({ db }, { sessionId: s.id }).catch(() => undefined);
  }
});

test('a cut live stream shows the reconnecting banner, keeps the page, and recovers by itself', async ({ signedInPage: page, saveShot }) => {
  test.setTimeout(60_000);
  await expect(page.getByTestId('live-status')).toHaveText('Live');
  await expect(page.getByTestId('reconnecting')).toHaveCount(0);
  // Every attempt to open the stream is refused; the page is loaded again so the open one goes too.
  await page.route('**/api/trpc/live.changes**', (route) => route.abort());
  await page.reload();
  await expect(page.getByTestId('reconnecting')).toBeVisible();
  await expect(page.getByTestId('reconnecting')).toContainText('Reconnecting');
  // The content stays on screen.
  await expect(page.getByRole('heading', { name: 'Open sessions' })).toBeVisible();
  await expect(page.locator('[data-testid="node-card"][data-node-name="this computer"]')).toBeVisible();
  await saveShot(page, 'reconnecting');
  await page.unroute('**/api/trpc/live.changes**');
  // It retries by itself: no reload.
  await expect(page.getByTestId('reconnecting')).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByTestId('live-status')).toHaveText('Live');
});

test('an unknown address shows the branded not-found page with a way back', async ({ signedInPage: page, saveShot }) => {
  const res = await page.goto('/no-such-page-here');
  expect(res?.status()).toBe(404);
  await expect(page.getByTestId('not-found')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'This page does not exist' })).toBeVisible();
  await saveShot(page, 'not-found');
  await page.getByRole('link', { name: 'Back to Bria' }).click();
  await expect(page.getByRole('heading', { name: 'Open sessions' })).toBeVisible();
  const icon = await page.request.get('/icon.svg');
  expect(icon.status()).toBe(200);
  expect(await icon.text()).toContain('<svg');
});

test('Escape cancels an inline confirmation and gives the focus back to its button', async ({ signedInPage: page }) => {
  const card = page.locator(`[data-testid="node-card"][data-node-name="alpha ${run}"]`);
  await card.getByText('Agent tokens (1)').click();
  const revoke = card.getByRole('button', { name: 'Revoke' });
  await revoke.click();
  const confirm = card.getByTestId('inline-confirm');
  await expect(confirm).toContainText('Revoke this token?');
  await page.keyboard.press('Escape');
  await expect(confirm).toHaveCount(0);
  await expect(revoke).toBeFocused();
  expect(await db.agentToken.count({ where: { nodeId: nodes.alpha, revokedAt: null } })).toBe(1);
});

test('a computer: a new token shows its command once; removing asks in place and keeps its sessions in the archive', async ({ signedInPage: page }) => {
  const card = page.locator(`[data-testid="node-card"][data-node-name="beta ${run}"]`);
  await card.getByText('Token and removal').click();
  await card.getByRole('button', { name: 'Issue a new token' }).click();
  // The same one command as "Add a computer": download from the hub, checked, the token into a file.
  await expect(card.getByTestId('issued-command')).toContainText(/curl .*\/agent\/bria-agent-.*--token-file/);
  await expect(card.getByTestId('issued-command')).toContainText(/printf '%s\\n' 'bria_agent_/);
  // It replaces the computer's token (issue 30), and says so.
  await expect(card.getByTestId('issued-replaced')).toContainText('The new token replaces the old one: 1 earlier token(s)');
  await card.getByRole('button', { name: 'Done' }).click();
  await expect(card.getByTestId('issued-command')).toHaveCount(0);
  expect(await db.agentToken.count({ where: { nodeId: nodes.beta, revokedAt: null } })).toBe(1);

  // An open session keeps it: the service's own sentence is shown.
  const open = await openSession({ nodeId: nodes.beta, executor: 'codex', title: `keeps-${run}`, minutesAgo: 0 });
  await card.getByTestId('remove-computer').click();
  await card.getByRole('button', { name: 'Yes, remove' }).click();
  await expect(card.getByTestId('node-action-error')).toHaveText(
    'This computer still has open sessions. Close them first; its closed sessions stay in the archive.',
  );
  await db.session.update({ where: { id: open.id }, data: { state: 'Archived', archivedAt: new Date(), archiveSortAt: new Date() } });
  await card.getByTestId('remove-computer').click();
  await card.getByRole('button', { name: 'Yes, remove' }).click();
  await expect(card).toHaveCount(0);
  await page.getByRole('link', { name: 'Archive' }).click();
  await page.getByTestId('archive-search').fill(`keeps-${run}`);
  await expect(page.getByTestId('archived-session')).toHaveCount(1);
  await expect(page.getByTestId('archived-session')).toHaveAttribute('data-session-id', open.id);
  await expect(page.getByTestId('archived-session')).toContainText(`beta ${run} (removed computer)`);
});

test("sign out everywhere ends this browser's sign-in and the others", async ({ signedInPage: page, browser, newLoginLink }) => {
  const other = await browser.newContext();
  try {
    const otherPage = await other.newPage();
    await otherPage.goto(await newLoginLink());
    await expect(otherPage).toHaveURL(/\/$/);
    await page.goto('/settings');
    await page.getByTestId('sign-out-everywhere').click();
    await page.getByRole('button', { name: 'Yes, sign out everywhere' }).click();
    await expect(page).toHaveURL(/\/signin$/);
    await otherPage.goto('/settings');
    await expect(otherPage).toHaveURL(/\/signin$/);
  } finally {
    await other.close();
  }
});
