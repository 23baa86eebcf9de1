import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { createSession } from '@bria/core/services';
import { expect, test } from './fixtures.ts';

let db: Db;
test.afterAll(async () => {
  await db?.$disconnect();
});

/**
 * The whole way of issue 14 with the real Claude CLI: the mock model asks for a Bash tool, the
 * CLI's PermissionRequest hook reaches the agent, the hub stores the event, the engine opens the
 * PermissionPrompt row, and the session page shows it live. Answered there, the answer reaches the
 * CLI (the tool runs); a page that did not hear of it (its live stream cut) gets "already answered".
 */
test('a permission request of the real CLI on the session page, answered there; a second answer is already answered', async ({ signedInPage: page, state, browser, newLoginLink, saveShot }) => {
  test.setTimeout(300_000);
  db ??= createDb(state.databaseUrl, { max: 2 });
  const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
  const folder = path.join(state.workDir, `prompt-${Date.now()}`);
  mkdirSync(folder, { recursive: true });
  const s = await createSession({ db }, { nodeId: node.id, executor: 'claude', folder });

  await page.goto(`/sessions/${s.id}`);
  const badge = page.getByTestId('session-state');
  await expect(badge).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });
  const marker = `web${Date.now()}`;
  await page.getByTestId('message-input').fill(`please TOOLBASH-${marker} now`);
  await page.getByRole('button', { name: 'Send' }).click();

  // The request arrives over the live stream, without a reload.
  const card = page.getByTestId('prompt');
  await expect(card).toBeVisible({ timeout: 120_000 });
  await expect(page.getByRole('heading', { name: 'Waiting for your answer' })).toBeVisible();
  await expect(card).toHaveAttribute('data-state', 'pending');
  await expect(card).toContainText('The agent wants to use Bash');
  await expect(card.getByTestId('prompt-command')).toHaveText(`touch ran-${marker}`);
  await expect(card.getByRole('button', { name: 'Always allow this for the session' })).toBeVisible();
  await expect(badge).toHaveAttribute('data-wait', 'answer');
  await expect(badge).toHaveText(/waiting for your answer/i);
  const prompt = await db.permissionPrompt.findFirstOrThrow({ where: { sessionId: s.id } });
  expect(prompt).toMatchObject({ state: 'pending', toolName: 'Bash', answeredFrom: null });
  expect(existsSync(path.join(folder, `ran-${marker}`))).toBe(false);
  await saveShot(page, 'session-permission-request');

  // A second tab: the open-sessions list says what the session waits for; then its live stream is cut.
  const context = await browser.newContext({ baseURL: state.baseURL, locale: 'en-US' });
  try {
    const stale = await context.newPage();
    await stale.goto(await newLoginLink());
    await stale.goto(`/nodes/${node.id}`);
    const row = stale.locator(`[data-testid="open-session"][data-session-id="${s.id}"]`);
    await expect(row.getByTestId('session-state')).toHaveText(/waiting for your answer/i);
    await stale.route(/\/api\/trpc\/live\.changes/, (r) => r.abort());
    await stale.goto(`/sessions/${s.id}`);
    await expect(stale.getByTestId('prompt')).toHaveAttribute('data-state', 'pending');

    await card.getByRole('button', { name: 'Allow', exact: true }).click();
    await expect(page.locator(`[data-prompt-id="${prompt.id}"]`).getByTestId('prompt-status')).toContainText('Answered: Allow (from the dashboard).');
    const answered = await db.permissionPrompt.findUniqueOrThrow({ where: { id: prompt.id } });
    expect(answered.answeredFrom).toBe('dashboard');
    expect(['answered', 'delivered']).toContain(answered.state);
    expect(answered.answer).toEqual({ decision: 'allow' });
    const commands = await db.agentCommand.findMany({ where: { sessionId: s.id, type: 'answer_permission' } });
    expect(commands).toHaveLength(1);
    expect(commands[0]?.payload).toMatchObject({ requestId: prompt.id, decision: 'allow', from: 'dashboard', answerId: answered.answerId });
    // The answer reached the CLI: the tool ran.
    await expect.poll(() => existsSync(path.join(folder, `ran-${marker}`)), { timeout: 60_000 }).toBe(true);

    // The tab that missed the change still offers the buttons; its press is told the truth.
    await stale.getByTestId('prompt').getByRole('button', { name: 'Allow', exact: true }).click();
    await expect(stale.getByTestId('prompt-result')).toHaveText('Already answered. Answered: Allow (from the dashboard).');
    expect(await db.agentCommand.count({ where: { sessionId: s.id, type: 'answer_permission' } })).toBe(1);
  } finally {
    await context.close();
  }

  // The session no longer waits for anyone; the timeline keeps the request and the answer.
  await expect(badge).not.toHaveAttribute('data-wait', /.+/, { timeout: 120_000 });
  await expect(page.getByTestId('evidence-row').filter({ hasText: 'permission_request' })).toContainText('Asked to use Bash.');
  await expect(page.getByTestId('evidence-row').filter({ hasText: 'permission_answered' })).toContainText('Answered: Allow (from the dashboard).');
  await saveShot(page, 'session-permission-answered');
});
