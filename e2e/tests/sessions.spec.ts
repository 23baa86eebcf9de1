import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { expect, test } from './fixtures.ts';

// One real session goes through its whole life here; the steps share it, so they run in order.
test.describe.configure({ mode: 'serial' });

let db: Db;
let sessionId = '';
let folder = '';
test.afterAll(async () => {
  await db?.$disconnect();
});

test('new session on the local node: agent picked, folder typed, the real CLI starts (Starting → Ready)', async ({ signedInPage: page, state, saveShot }) => {
  test.setTimeout(120_000);
  db ??= createDb(state.databaseUrl, { max: 2 });
  folder = path.join(state.workDir, `web-${Date.now()}`);
  mkdirSync(folder, { recursive: true });

  const card = page.locator('[data-testid="node-card"][data-node-name="this computer"]');
  await card.getByTestId('node-sessions-link').click();
  await expect(page.getByRole('heading', { name: 'this computer', level: 1 })).toBeVisible();
  await page.getByRole('link', { name: 'New session' }).click();
  await expect(page.getByRole('heading', { name: 'New session on this computer' })).toBeVisible();
  // Both agents are enabled: the user picks one; nothing is picked silently.
  await expect(page.getByRole('button', { name: 'Start a new session' })).toBeDisabled();
  await page.getByRole('radio', { name: 'Claude Code' }).check();
  await page.getByLabel('Working folder (absolute path)').fill('relative/path');
  await page.getByRole('button', { name: 'Start a new session' }).click();
  await expect(page.getByTestId('new-error')).toHaveText('Type an absolute path, starting with /.');
  // Resume suggestions are off by default: the step is absent.
  await expect(page.getByTestId('resume-suggestions')).toHaveCount(0);
  await page.getByLabel('Working folder (absolute path)').fill(folder);
  await saveShot(page, 'new-session');
  await page.getByRole('button', { name: 'Start a new session' }).click();

  await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/);
  sessionId = page.url().split('/').at(-1) ?? '';
  const row = await db.session.findUniqueOrThrow({ where: { id: sessionId } });
  expect(row).toMatchObject({ executor: 'claude', folder, launchSource: 'bria' });
  await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', /Starting|Ready/);
  // The timeline is one click away, in people's words.
  await page.getByTestId('session-details').locator(':scope > summary').click();
  await expect(page.locator('[data-testid="evidence-row"][data-event="create"]')).toContainText('You started the session.');
  // Ready arrives over the live stream, without a reload, once the agent saw the CLI up.
  await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 90_000 });
  const ready = await db.session.findUniqueOrThrow({ where: { id: sessionId } });
  expect(ready.state).toBe('Ready');
  expect((ready.identity as { pid?: number } | null)?.pid).toEqual(expect.any(Number));
});

test('a message goes into the durable queue, the final answer appears as Markdown, outcome completed', async ({ signedInPage: page, saveShot }) => {
  test.setTimeout(120_000);
  await page.goto(`/sessions/${sessionId}`);
  await page.getByTestId('message-input').fill('Hello <b>bold</b> from the dashboard');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByTestId('send-status')).toHaveText('Stored in the queue (#1).');
  const stored = await db.message.findFirstOrThrow({ where: { sessionId }, orderBy: { seq: 'asc' } });
  expect(stored).toMatchObject({ seq: 1, source: 'web', text: 'Hello <b>bold</b> from the dashboard' });

  // The conversation is the CLI's own journal, read on the node by the agent (read_journal).
  await expect(page.getByTestId('conv-source')).toHaveAttribute('data-source', 'native', { timeout: 30_000 });
  const turn = page.locator('[data-testid="conversation"][data-source="journal"] [data-testid="turn"]').first();
  await expect(turn.getByTestId('final')).toContainText('MOCK-REPLY', { timeout: 90_000 });
  await expect(turn).toHaveAttribute('data-state', 'completed');
  await expect(page.getByTestId('queue-row').first()).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  // The message left the queue: the page no longer says it is stored there.
  await expect(page.getByTestId('send-status')).toHaveCount(0);
  // The user's markup is shown as text, never as HTML.
  await expect(turn).toContainText('<b>bold</b>');
  expect(await turn.locator('b').count()).toBe(0);
  const final = await db.message.findUniqueOrThrow({ where: { id: stored.id } });
  expect(final.status).toBe('completed');
  expect(final.finalText).toContain('MOCK-REPLY');
  await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready');
  await saveShot(page, 'session');
  await page.setViewportSize({ width: 390, height: 844 });
  await saveShot(page, 'session-phone');
  // Nothing on a phone-sized page is wider than the screen.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

test("with the node away, the page says so and shows Bria's stored turns instead", async ({ signedInPage: page, state, request, saveShot }) => {
  test.setTimeout(90_000);
  expect((await request.post(`${state.controlURL}/hub/stop`)).status()).toBe(204);
  try {
    await expect.poll(async () => (await db.node.findFirstOrThrow({ where: { name: 'this computer' } })).online, { timeout: 20_000 }).toBe(false);
    await page.goto(`/sessions/${sessionId}`);
    const note = page.getByTestId('conv-fallback');
    await expect(note).toHaveAttribute('data-reason', 'node_offline', { timeout: 15_000 });
    await expect(note).toHaveText("Computer offline — showing Bria's stored turns.");
    const stored = page.locator('[data-testid="conversation"][data-source="stored"] [data-testid="turn"]').first();
    await expect(stored.getByTestId('final')).toContainText('MOCK-REPLY');
    await saveShot(page, 'session-node-offline');
  } finally {
    expect((await request.post(`${state.controlURL}/hub/start`)).status()).toBe(204);
  }
  await expect.poll(async () => (await db.node.findFirstOrThrow({ where: { name: 'this computer' } })).online, { timeout: 30_000 }).toBe(true);
  // Back online: the journal is read again (the live stream's resync reloads the page's queries).
  await page.reload();
  await expect(page.getByTestId('conv-source')).toHaveAttribute('data-source', 'native', { timeout: 30_000 });
});

test('close asks first, then the session is archived and found by search; resume reopens it', async ({ signedInPage: page, saveShot }) => {
  test.setTimeout(150_000);
  await page.goto(`/sessions/${sessionId}`);
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await expect(page.getByText('Close this session?')).toBeVisible();
  await page.getByRole('button', { name: 'Cancel' }).click();
  expect((await db.session.findUniqueOrThrow({ where: { id: sessionId } })).state).toBe('Ready');
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await page.getByRole('button', { name: 'Yes, close' }).click();
  await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Archived', { timeout: 90_000 });
  const archived = await db.session.findUniqueOrThrow({ where: { id: sessionId } });
  expect(archived.state).toBe('Archived');
  expect(await db.sessionEvidence.count({ where: { sessionId, toState: 'Archived' } })).toBeGreaterThan(0);
  const pid = (archived.identity as { pid?: number } | null)?.pid;
  if (pid) expect(() => process.kill(pid, 0)).toThrow();

  await page.getByRole('link', { name: /Sessions of this computer/ }).click();
  await expect(page.getByTestId('open-session').filter({ has: page.locator(`[href="/sessions/${sessionId}"]`) })).toHaveCount(0);
  await page.getByTestId('archive-search').fill(path.basename(folder));
  const hit = page.getByTestId('archived-session');
  await expect(hit).toHaveCount(1);
  await expect(hit).toHaveAttribute('data-session-id', sessionId);
  await page.getByTestId('archive-search').fill('no-such-session-anywhere');
  await expect(page.getByText('Nothing in the archive matches.')).toBeVisible();
  await page.getByTestId('archive-search').fill(path.basename(folder));
  await saveShot(page, 'node-sessions');
  await page.setViewportSize({ width: 390, height: 844 });
  await saveShot(page, 'node-sessions-phone');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1280, height: 720 });

  await hit.getByRole('link').click();
  await page.getByRole('button', { name: 'Resume' }).click();
  await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', /Resuming|Ready/);
  await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 90_000 });
  const resumed = await db.session.findUniqueOrThrow({ where: { id: sessionId } });
  expect(resumed.nativeSessionId).toBe(archived.nativeSessionId);
  await page.getByTestId('session-details').locator(':scope > summary').click();
  await expect(page.locator('[data-testid="evidence-row"][data-event="resume_requested"]')).toContainText('You asked to resume the session.');
});

test('stop interrupts the current answer only; the session stays open', async ({ signedInPage: page }) => {
  test.setTimeout(120_000);
  await page.goto(`/sessions/${sessionId}`);
  await page.getByTestId('message-input').fill('Please answer SLOW');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Running', { timeout: 60_000 });
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 60_000 });
  const last = await db.message.findFirstOrThrow({ where: { sessionId }, orderBy: { seq: 'desc' } });
  expect(last.status).toBe('terminal_failed');
  // The journal marks the stopped turn (interrupted, or ended per Bria's record when Claude wrote no end).
  const stopped = page.locator('[data-testid="conversation"][data-source="journal"] [data-testid="turn"]').last();
  await expect(stopped).toContainText('Please answer SLOW');
  await expect(stopped.getByTestId('turn-failed')).toBeVisible({ timeout: 30_000 });
  await expect(stopped.getByTestId('turn-failed')).toHaveText(/You stopped this answer|No end in the journal/);
  // Clean up: close it so the node's list stays short for the other tests.
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await page.getByRole('button', { name: 'Yes, close' }).click();
  await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Archived', { timeout: 90_000 });
});
