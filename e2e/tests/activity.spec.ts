import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { closeSession, createSession } from '@bria/core/services';
import { expect, test } from './fixtures.ts';

let db: Db;
test.afterAll(async () => {
  await db?.$disconnect();
});

/**
 * Live progress (issue 15) on the dashboard. The rows are stored the way the engine stores an
 * `activity` event (SessionActivity rows, then the session row's activity/activityAt, whose update
 * raises the change NOTIFY), for a session of the local node whose CLI is not started: what is
 * checked is what the pages make of them, and that a new step arrives without a reload.
 */
test('a turn streams its steps under the message (command with exit code and output, edit with its diff), new steps arrive live; the list says what the session does', async ({
  signedInPage: page,
  state,
  saveShot,
}) => {
  test.setTimeout(120_000);
  db ??= createDb(state.databaseUrl, { max: 2 });
  const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
  const sessionId = randomUUID();
  const messageId = randomUUID();
  const t0 = Date.now() - 120_000;
  const at = (s: number) => new Date(t0 + s * 1000);
  const current = (o: { subject: string; steps: number; at: Date }) => ({
    kind: 'command',
    toolName: 'Bash',
    subject: o.subject,
    status: 'running',
    added: null,
    removed: null,
    reads: 0,
    steps: o.steps,
    nativeTurnId: 'turn-1',
    turnStartedAt: at(1).toISOString(),
    at: o.at.toISOString(),
  });
  await db.session.create({
    data: {
      id: sessionId,
      nodeId: node.id,
      executor: 'claude',
      folder: path.join(state.workDir, 'streamed'),
      nativeSessionId: randomUUID(),
      state: 'Running',
      title: 'Streamed turn',
      activity: current({ subject: 'npm test', steps: 4, at: at(9) }),
      activityAt: at(9),
      contextUsed: 108_528,
      contextWindow: 258_400,
      contextWindowSource: 'journal',
      compactions: 2,
    },
  });
  await db.message.create({
    data: {
      id: messageId,
      sessionId,
      seq: 1,
      source: 'web',
      text: 'Make the login check stricter',
      status: 'accepted',
      acceptedAt: at(0),
      nativeRecordId: 'turn-1',
      createdAt: at(0),
    },
  });
  const step = (
    o: {
      ref: string;
      kind: string;
      toolName?: string;
      subject?: string;
      status: string;
      start: number;
      end?: number;
      messageId?: string | null;
      nativeTurnId?: string;
    } & Record<string, unknown>,
  ) => {
    const { ref, start, end, messageId: mid, nativeTurnId, ...rest } = o;
    return {
      sessionId,
      ref,
      nativeTurnId: nativeTurnId ?? 'turn-1',
      messageId: mid === undefined ? messageId : mid,
      sourceRecordId: `rec-${ref}`,
      sourceOffset: 4096 + start,
      eventSeq: 10 + start,
      startedAt: at(start),
      endedAt: end === undefined ? null : at(end),
      ...rest,
    };
  };
  await db.sessionActivity.createMany({
    data: [
      step({ ref: 'text-1', kind: 'text', status: 'ok', start: 1, text: 'I will run the **tests** first.' }),
      step({
        ref: 'cmd-1',
        kind: 'command',
        toolName: 'Bash',
        subject: 'npm test',
        status: 'error',
        exitCode: 1,
        outputHead: 'FAIL src/login.test.ts\n  ✕ rejects a short password',
        start: 2,
        end: 5,
      }),
      step({
        ref: 'edit-1',
        kind: 'edit',
        toolName: 'Edit',
        subject: '/srv/app/src/login.ts',
        status: 'ok',
        diffAdded: 2,
        diffRemoved: 1,
        diffText: '@@ -1,2 +1,3 @@\n-const MIN = 0;\n+const MIN = 8;\n+const MAX = 64;\n export { MIN };\n',
        start: 6,
        end: 7,
      }),
      // Typed at the computer (no Bria request): its own group, after the turn it followed in time.
      step({ ref: 'pc-1', kind: 'read', toolName: 'Read', subject: '/etc/hosts', status: 'ok', start: 8, end: 8, messageId: null, nativeTurnId: 'turn-pc' }),
    ],
  });

  // Two usage reports for the chart, stored as already processed (the engine leaves them alone) with
  // sequence numbers below any the real agent uses.
  const usageSeqs = [-Date.now(), -Date.now() - 1].map(BigInt);
  await db.agentEvent.createMany({
    data: [
      [50_000, 1],
      [108_528, 60],
    ].map(([tokens, s], i) => ({
      nodeId: node.id,
      seq: usageSeqs[i]!,
      type: 'usage',
      sessionId,
      receivedAt: at(s!),
      processedAt: new Date(),
      payload: { type: 'usage', sessionId, data: { inputTokens: tokens, outputTokens: 900 } },
    })),
  });

  try {
    await page.goto(`/sessions/${sessionId}`);
    await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Running');
    await expect(page.getByTestId('context-use')).toHaveText('42% of 258,400 tokens');
    await expect(page.getByTestId('context-compactions')).toHaveText('2');
    // The token chart names its axes and their units.
    const chart = page.getByTestId('usage-figure');
    await expect(chart.getByTestId('chart-y-title')).toHaveText('Input tokens');
    await expect(chart.getByTestId('chart-x-title')).toHaveText('Time');
    await expect(chart.locator('.chart-ticks span')).toHaveText(['108,528', '0']);
    await expect(chart.locator('.chart-x time')).toHaveCount(2);

    const turn = page.getByTestId('turn').filter({ hasText: 'Make the login check stricter' });
    const rows = turn.getByTestId('activity-row');
    await expect(rows).toHaveCount(3);
    await expect(rows.nth(0)).toHaveAttribute('data-kind', 'text');
    await expect(rows.nth(0)).toContainText('I will run the tests first.');
    await expect(rows.nth(0).locator('strong')).toHaveText('tests');

    const command = turn.locator('[data-testid="activity-row"][data-ref="cmd-1"]');
    await expect(command.getByTestId('activity-subject')).toHaveText('npm test');
    await expect(command.getByTestId('activity-status')).toHaveText('error (exit 1)');
    await expect(command.getByTestId('activity-summary')).toContainText('3 s');
    // Collapsed until opened; opened, the output head and the record it rests on.
    await expect(command.getByTestId('activity-output')).toBeHidden();
    await command.getByTestId('activity-summary').click();
    await expect(command.getByTestId('activity-output')).toHaveText('FAIL src/login.test.ts\n  ✕ rejects a short password');
    // The record it rests on only on demand (issue 31, defect 6).
    await expect(command.getByTestId('activity-source')).toBeHidden();
    await command.getByTestId('activity-source-toggle').locator('summary').click();
    await expect(command.getByTestId('activity-source')).toHaveText('source: journal record rec-cmd-1 @ 4098, event #12');

    const edit = turn.locator('[data-testid="activity-row"][data-ref="edit-1"]');
    await expect(edit.getByTestId('activity-subject')).toHaveText('/srv/app/src/login.ts');
    await expect(edit.getByTestId('activity-diffstat')).toHaveText('+2 −1');
    await edit.getByTestId('activity-summary').click();
    const diff = edit.getByTestId('activity-diff');
    await expect(diff.locator('[data-line="del"]')).toHaveText(['-const MIN = 0;']);
    await expect(diff.locator('[data-line="add"]')).toHaveText(['+const MIN = 8;', '+const MAX = 64;']);
    await expect(diff.locator('[data-line="hunk"]')).toHaveText(['@@ -1,2 +1,3 @@']);

    const computer = page.getByTestId('activity-group');
    await expect(computer).toHaveAttribute('data-native-turn', 'turn-pc');
    await expect(computer).toContainText('Activity at the computer');
    await expect(computer.getByTestId('activity-subject')).toHaveText('/etc/hosts');
    await saveShot(page, 'session-activity');
    // Opened rows with long lines stay inside a phone's screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await saveShot(page, 'session-activity-phone');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 720 });

    // A new step, stored as the engine stores one: it appears on the open page without a reload
    // (a reload would lose the marker), and the opened rows stay open.
    await page.evaluate(() => {
      (window as unknown as { briaMarker: number }).briaMarker = 1;
    });
    await db.sessionActivity.create({ data: step({ ref: 'cmd-2', kind: 'command', toolName: 'Bash', subject: 'npm run lint', status: 'running', start: 10 }) });
    await db.session.update({
      where: { id: sessionId },
      data: { activity: current({ subject: 'npm run lint', steps: 5, at: at(10) }), activityAt: new Date() },
    });
    const lint = turn.locator('[data-testid="activity-row"][data-ref="cmd-2"]');
    await expect(lint.getByTestId('activity-subject')).toHaveText('npm run lint');
    await expect(lint).toHaveAttribute('data-status', 'running');
    await expect(lint.getByTestId('activity-status')).toHaveText('running…');
    await expect(rows).toHaveCount(4);
    expect(await page.evaluate(() => (window as unknown as { briaMarker?: number }).briaMarker)).toBe(1);
    await expect(command.getByTestId('activity-output')).toBeVisible();

    // The open-sessions list: the working session's current activity in one line.
    await page.goto(`/nodes/${node.id}`);
    const line = page.locator(`[data-testid="open-session"][data-session-id="${sessionId}"]`).getByTestId('activity-line');
    await expect(line).toHaveText(/^Running npm run lint · \d+ min · 5 steps$/);
    await expect(line.locator('code')).toHaveText('npm run lint');
    // The list follows the session's next step live too.
    await db.session.update({
      where: { id: sessionId },
      data: {
        activity: {
          ...current({ subject: '/srv/app/src/login.ts', steps: 6, at: at(11) }),
          kind: 'edit',
          toolName: 'Edit',
          status: 'ok',
          added: 3,
          removed: 0,
        },
        activityAt: new Date(),
      },
    });
    await expect(line).toHaveText(/^Edited src\/login\.ts \(\+3 −0\) · \d+ min · 6 steps$/);
    await saveShot(page, 'node-sessions-activity');
  } finally {
    await db.agentEvent.deleteMany({ where: { nodeId: node.id, seq: { in: usageSeqs } } });
    await db.session.update({ where: { id: sessionId }, data: { state: 'Archived', archivedAt: new Date(), archiveSortAt: new Date() } });
  }
});

/**
 * The same with the real Claude CLI (bypass mode: tools run without asking): the mock model runs a
 * command that waits for a file; the page shows that command as a running row while it runs, live,
 * then as finished with its output when the test lets it end, and the final after it.
 */
test('a real CLI turn: the running command appears live, then ends with its output, then the final', async ({ signedInPage: page, state, saveShot }) => {
  test.setTimeout(300_000);
  db ??= createDb(state.databaseUrl, { max: 2 });
  const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
  const folder = path.join(state.workDir, `stream-${Date.now()}`);
  mkdirSync(folder, { recursive: true });
  const s = await createSession({ db }, { nodeId: node.id, executor: 'claude', folder, permissionMode: 'bypassPermissions' });
  await page.goto(`/sessions/${s.id}`);
  const badge = page.getByTestId('session-state');
  await expect(badge).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });
  const marker = `w${Date.now()}`;
  await page.getByTestId('message-input').fill(`please TOOLWAIT-${marker}`);
  await page.getByRole('button', { name: 'Send' }).click();

  const row = page.locator('[data-testid="activity-row"][data-kind="command"]').filter({ hasText: `go-${marker}` });
  await expect(row).toHaveAttribute('data-status', 'running', { timeout: 120_000 });
  await saveShot(page, 'session-streamed-running');
  writeFileSync(path.join(folder, `go-${marker}`), '');
  await expect(row).toHaveAttribute('data-status', 'ok', { timeout: 120_000 });
  await row.getByTestId('activity-summary').click();
  await expect(row.getByTestId('activity-output')).toContainText(`released-${marker}`);
  await expect(page.getByText(/TOOL-DONE-\d+/).first()).toBeVisible({ timeout: 120_000 });
  await expect(badge).toHaveAttribute('data-state', 'Ready', { timeout: 60_000 });
  await closeSession({ db }, { sessionId: s.id });
});
