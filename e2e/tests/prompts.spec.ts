import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { answerPrompt, closeSession, createSession } from '@bria/core/services';
import { insertPrompt, recountOpenPrompts } from '../../packages/core/src/db/repos/prompts.ts';
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
test('a permission request of the real CLI on the session page, answered there; a second answer is already answered', async ({
  signedInPage: page,
  state,
  browser,
  newLoginLink,
  saveShot,
}) => {
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
  await expect(card.getByRole('button', { name: `Allow \`touch ran-${marker}\` for this session` })).toBeVisible();
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
  await expect(page.locator('[data-testid="evidence-row"][data-event="permission_request"]')).toContainText('Asked to use Bash.');
  await expect(page.locator('[data-testid="evidence-row"][data-event="permission_answered"]')).toContainText('Answered: Allow (from the dashboard).');
  await saveShot(page, 'session-permission-answered');
  // The turn ends; the CLI is closed so it does not outlive the test.
  await expect(badge).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });
  await closeSession({ db }, { sessionId: s.id });
});

const QUESTION = {
  questions: [
    {
      question: 'Which color?',
      header: 'Color',
      multiSelect: false,
      options: [
        { label: 'Red', description: 'warm' },
        { label: 'Blue', description: 'cool' },
      ],
    },
    { question: 'Which sizes?', header: 'Sizes', multiSelect: true, options: [{ label: 'S' }, { label: 'M' }, { label: 'L' }] },
  ],
};

/**
 * Questions, deny with a reason, and an answer given in Telegram. The rows are stored the way the
 * engine stores a `permission_request` (repo insertPrompt + recountOpenPrompts, one transaction),
 * for a session of the local node whose CLI is not started: the answers' commands are what is checked.
 */
test('a question answered with its options (radio and checkboxes); an edit denied with a reason; an answer from Telegram appears live', async ({
  signedInPage: page,
  state,
  saveShot,
}) => {
  test.setTimeout(120_000);
  db ??= createDb(state.databaseUrl, { max: 2 });
  const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
  const sessionId = randomUUID();
  await db.session.create({
    data: {
      id: sessionId,
      nodeId: node.id,
      executor: 'claude',
      folder: path.join(state.workDir, 'asked'),
      nativeSessionId: randomUUID(),
      state: 'Running',
      title: 'Asked things',
    },
  });
  const ask = async (o: { kind: 'tool' | 'question'; toolName: string; toolInput: Record<string, unknown>; canAlwaysAllow: boolean }) => {
    const requestId = randomUUID();
    const now = Date.now();
    await db.$transaction(async (tx) => {
      await insertPrompt(tx, sessionId, 1, { requestId, ...o, receivedAt: now, expiresAt: now + 30 * 60_000 });
      await recountOpenPrompts(tx, sessionId);
    });
    return requestId;
  };
  try {
    await page.goto(`/sessions/${sessionId}`);
    await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Running');
    await expect(page.getByTestId('session-state')).not.toHaveAttribute('data-wait', /.+/);

    const question = await ask({ kind: 'question', toolName: 'AskUserQuestion', toolInput: QUESTION, canAlwaysAllow: false });
    const card = page.locator(`[data-prompt-id="${question}"]`);
    await expect(card).toContainText('The agent asks');
    await expect(page.getByTestId('session-state')).toHaveText(/waiting for your answer/i);
    const send = card.getByRole('button', { name: 'Send' });
    await expect(send).toBeDisabled();
    await card.getByRole('radio', { name: /Blue/ }).check();
    await expect(send).toBeDisabled();
    await card.getByRole('checkbox', { name: 'S', exact: true }).check();
    await card.getByRole('checkbox', { name: 'L', exact: true }).check();
    await saveShot(page, 'session-question');
    await send.click();
    await expect(card.getByTestId('prompt-status')).toContainText('Answered: Blue; S, L (from the dashboard).');
    const q = await db.permissionPrompt.findUniqueOrThrow({ where: { id: question } });
    expect(q).toMatchObject({
      state: 'answered',
      answeredFrom: 'dashboard',
      answer: { decision: 'allow', answers: { 'Which color?': 'Blue', 'Which sizes?': ['S', 'L'] } },
    });

    const tool = await ask({
      kind: 'tool',
      toolName: 'Edit',
      toolInput: { file_path: '/srv/app/main.ts', old_string: 'const a = 1;', new_string: 'const a = 2;' },
      canAlwaysAllow: false,
    });
    const toolCard = page.locator(`[data-prompt-id="${tool}"]`);
    await expect(toolCard.getByTestId('prompt-file')).toHaveText('/srv/app/main.ts');
    await expect(toolCard.getByTestId('prompt-diff')).toHaveText('− const a = 1;\n+ const a = 2;\n');
    await expect(toolCard.getByRole('button', { name: /for this session/ })).toHaveCount(0);
    await toolCard.getByLabel('Reason for a deny (optional, the agent reads it)').fill('not on the main branch');
    await toolCard.getByRole('button', { name: 'Deny' }).click();
    await expect(toolCard.getByTestId('prompt-status')).toContainText('Answered: Deny: not on the main branch (from the dashboard).');

    // Answered in Telegram (the bot calls the same service): the page follows without a reload.
    const other = await ask({ kind: 'tool', toolName: 'Bash', toolInput: { command: 'rm -rf build' }, canAlwaysAllow: true });
    const otherCard = page.locator(`[data-prompt-id="${other}"]`);
    await expect(otherCard).toHaveAttribute('data-state', 'pending');
    expect((await answerPrompt({ db }, { promptId: other, decision: 'always_allow', from: 'telegram' })).kind).toBe('answered');
    await expect(otherCard.getByTestId('prompt-status')).toContainText('Answered: Always allow for this session (from Telegram).');
    await expect(otherCard.getByRole('button')).toHaveCount(0);
    await expect(page.getByTestId('session-state')).not.toHaveAttribute('data-wait', /.+/);

    const commands = await db.agentCommand.findMany({ where: { sessionId, type: 'answer_permission' }, orderBy: { createdAt: 'asc' } });
    expect(commands.map((c) => c.payload)).toEqual([
      expect.objectContaining({ requestId: question, decision: 'allow', from: 'dashboard', answers: { 'Which color?': 'Blue', 'Which sizes?': ['S', 'L'] } }),
      expect.objectContaining({ requestId: tool, decision: 'deny', message: 'not on the main branch', from: 'dashboard' }),
      expect.objectContaining({ requestId: other, decision: 'always_allow', from: 'telegram' }),
    ]);
  } finally {
    await db.session.update({ where: { id: sessionId }, data: { state: 'Archived', archivedAt: new Date(), archiveSortAt: new Date() } });
  }
});
