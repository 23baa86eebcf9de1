import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { closeSession, createSession } from '@bria/core/services';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

let db: Db;
test.afterAll(async () => {
  await db?.$disconnect();
});

/** Types a message into the session page's composer and sends it. */
async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId('message-input').fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

/** Whether `el` is on screen and not under the sticky composer (its bottom at or above the composer's top). */
async function aboveComposer(page: Page, el: Locator): Promise<boolean> {
  const box = await el.boundingBox();
  const composer = await page.locator('.composer').boundingBox();
  if (!box || !composer) return false;
  return box.y >= 0 && box.y + box.height <= composer.y + 1;
}

/** The user turns the mouse wheel up until the page is at its top (a person scrolling, not a script). */
async function wheelToTop(page: Page): Promise<void> {
  await page.mouse.move(50, 200);
  await expect
    .poll(async () => {
      await page.mouse.wheel(0, -5000);
      return page.evaluate(() => window.scrollY);
    })
    .toBe(0);
}

async function closeQuietly(sessionId: string): Promise<void> {
  const row = await db.session.findUnique({ where: { id: sessionId } });
  if (row && row.state !== 'Archived') await closeSession({ db }, { sessionId }).catch(() => undefined);
}

/**
 * The session page's defects 1, 3, 4 and 5 of issue 31 (in the numbering), each with the real
 * pinned CLIs against the mock model servers, at a desktop and a phone size.
 */
for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test.describe(`${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test('1: the trusted start dialog leaves the pinned panel once the CLI started, says the trust worked, shows no false deadline; a new question stays in view', async ({
      signedInPage: page,
      state,
      saveShot,
    }) => {
      test.setTimeout(300_000);
      db ??= createDb(state.databaseUrl, { max: 2 });
      const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
      // A folder the CLI's home does not trust: Claude asks before it starts.
      const folder = mkdtempSync(path.join(tmpdir(), 'bria-e2e-trust-'));
      const s = await createSession({ db }, { nodeId: node.id, executor: 'claude', folder });
      try {
        await page.goto(`/sessions/${s.id}`);
        const dialog = page.locator('[data-testid="prompt"][data-state="pending"]');
        await expect(dialog).toBeVisible({ timeout: 120_000 });
        // No deadline made of the time it was received: a start dialog waits as long as the CLI shows it.
        await expect(dialog).not.toContainText('If nobody answers by');
        await expect(dialog.getByTestId('prompt-deadline')).toHaveText("The CLI waits on the computer's screen until it is answered, here or there.");
        const promptId = (await dialog.getAttribute('data-prompt-id')) ?? '';
        await dialog.getByRole('button', { name: 'Trust this folder and start' }).click();
        await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });

        // The trust worked: the card is gone from above the message box, and nothing says otherwise.
        await expect(page.getByTestId('prompt-panel')).toHaveCount(0);
        await expect(page.locator('body')).not.toContainText('The request ended before the answer reached the agent');
        const row = await db.permissionPrompt.findUniqueOrThrow({ where: { id: promptId } });
        expect(row).toMatchObject({ kind: 'dialog', state: 'ended', answeredFrom: 'dashboard', answer: { decision: 'allow' } });
        expect(row.resolution).toMatchObject({ cause: 'cli_ready' });
        // It is kept in the history, in words that match what happened.
        const history = page.getByTestId('prompt-history');
        await history.locator(':scope > summary').click();
        await expect(history.locator(`[data-prompt-id="${promptId}"]`).getByTestId('prompt-status')).toHaveText(
          'Trusted from the dashboard: the CLI started in this folder.',
        );
        await history.locator(':scope > summary').click();
        await saveShot(page, `defect-1-trusted-${viewport.width}`);

        // A new question comes right above the message box, in view (also on a phone).
        const marker = `t${Date.now()}`;
        await send(page, `please TOOLBASH-${marker} now`);
        const ask = page.locator('[data-testid="prompt"][data-state="pending"]');
        await expect(ask).toBeVisible({ timeout: 120_000 });
        const allow = ask.getByRole('button', { name: 'Allow', exact: true });
        await expect.poll(() => aboveComposer(page, allow), { timeout: 15_000 }).toBe(true);
        await saveShot(page, `defect-1-new-question-${viewport.width}`);
        await allow.click();
        await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });
      } finally {
        await closeQuietly(s.id);
        rmSync(folder, { recursive: true, force: true });
      }
    });

    test('3: after Resume the page follows the newest turn; scrolled up, "Jump to newest" brings it back; Stop stays in reach', async ({
      signedInPage: page,
      state,
      saveShot,
    }) => {
      test.setTimeout(400_000);
      db ??= createDb(state.databaseUrl, { max: 2 });
      const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
      const folder = path.join(state.workDir, `follow-${viewport.width}-${Date.now()}`);
      mkdirSync(folder, { recursive: true });
      const s = await createSession({ db }, { nodeId: node.id, executor: 'claude', folder });
      try {
        await page.goto(`/sessions/${s.id}`);
        const badge = page.getByTestId('session-state');
        await expect(badge).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });
        // Two long answers (each shown folded): the conversation is taller than the window, whatever is unfolded.
        for (const n of [1, 2]) {
          await send(page, `HUGEREPLY-9000 long answer ${n}`);
          await expect(page.getByTestId('final')).toHaveCount(n, { timeout: 120_000 });
          await expect(badge).toHaveAttribute('data-state', 'Ready', { timeout: 60_000 });
        }

        await closeSession({ db }, { sessionId: s.id });
        await expect(badge).toHaveAttribute('data-state', 'Archived', { timeout: 90_000 });
        await expect.poll(() => page.evaluate(() => document.documentElement.scrollHeight)).toBeGreaterThan(viewport.height * 1.5);
        // The person goes up to the head of the page and presses Resume there.
        await wheelToTop(page);
        await page.getByRole('button', { name: 'Resume' }).click();
        await expect(badge).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });
        const marker = `after resume ${Date.now()}`;
        await send(page, marker);
        const answer = page.getByTestId('final').filter({ hasText: marker });
        await expect(answer).toHaveCount(1, { timeout: 120_000 });
        // The new answer is on screen, right above the message box, not ~1,500 px below it.
        await expect.poll(() => aboveComposer(page, answer), { timeout: 15_000 }).toBe(true);
        await saveShot(page, `defect-3-after-resume-${viewport.width}`);

        // Scrolled up to read: the page stays there and offers the way back.
        await wheelToTop(page);
        const jump = page.getByTestId('jump-newest');
        await expect(jump).toBeVisible();
        await expect(jump).toBeInViewport();
        expect(await aboveComposer(page, answer)).toBe(false);
        await jump.click();
        await expect.poll(() => aboveComposer(page, answer), { timeout: 15_000 }).toBe(true);
        await expect(jump).toHaveCount(0);

        // A turn runs (its model never answers: it runs until stopped): Stop is in reach wherever the page is.
        await send(page, 'HANG stop me');
        await expect(badge).toHaveAttribute('data-state', 'Running', { timeout: 60_000 });
        await wheelToTop(page);
        const stop = page.getByRole('button', { name: 'Stop', exact: true });
        await expect(stop).toBeInViewport();
        await saveShot(page, `defect-3-stop-in-reach-${viewport.width}`);
        await stop.click();
        await expect(badge).toHaveAttribute('data-state', 'Ready', { timeout: 90_000 });
        const last = await db.message.findFirstOrThrow({ where: { sessionId: s.id }, orderBy: { seq: 'desc' } });
        expect(last).toMatchObject({ text: 'HANG stop me', status: 'terminal_failed' });
      } finally {
        await closeQuietly(s.id);
      }
    });

    test('4: a follow-up sent while a permission request is open is shown as queued, saying it waits for the answer', async ({
      signedInPage: page,
      state,
      saveShot,
    }) => {
      test.setTimeout(300_000);
      db ??= createDb(state.databaseUrl, { max: 2 });
      const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
      const folder = path.join(state.workDir, `queued-${viewport.width}-${Date.now()}`);
      mkdirSync(folder, { recursive: true });
      const s = await createSession({ db }, { nodeId: node.id, executor: 'claude', folder });
      try {
        await page.goto(`/sessions/${s.id}`);
        const badge = page.getByTestId('session-state');
        await expect(badge).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });
        const marker = `q${Date.now()}`;
        await send(page, `please TOOLBASH-${marker} now`);
        const card = page.locator('[data-testid="prompt"][data-state="pending"]');
        await expect(card).toBeVisible({ timeout: 120_000 });

        const followUp = `and then this, ${marker}`;
        await send(page, followUp);
        // Shown before it is delivered, in the conversation itself.
        await expect(page.getByTestId('conversation')).toContainText(followUp);
        const queued = page.getByTestId('conversation').locator('li', { hasText: followUp });
        // Issue 33: it says which dialog holds it.
        const why = queued.getByTestId('queue-line');
        await expect(why).toHaveText('Held while the permission request for Bash is open: answer it and this goes next.');
        await expect(why).toHaveAttribute('data-state', 'held');
        expect((await db.message.findFirstOrThrow({ where: { sessionId: s.id, text: followUp } })).status).toBe('pending');
        await saveShot(page, `defect-4-queued-${viewport.width}`);

        await card.getByRole('button', { name: 'Allow', exact: true }).click();
        // Answered, the follow-up goes once the asking turn ended, and its answer arrives where it was.
        await expect(page.getByTestId('final').filter({ hasText: followUp })).toHaveCount(1, { timeout: 180_000 });
        await expect(page.getByTestId('queue-line')).toHaveCount(0);
        expect((await db.message.findFirstOrThrow({ where: { sessionId: s.id, text: followUp } })).status).toBe('completed');
      } finally {
        await closeQuietly(s.id);
      }
    });

    test("5: Codex's request to run a command names it as Codex does, and its step waits for the answer without a clock", async ({
      signedInPage: page,
      state,
      saveShot,
    }) => {
      test.setTimeout(300_000);
      db ??= createDb(state.databaseUrl, { max: 2 });
      const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
      const folder = path.join(state.workDir, `codex-ask-${viewport.width}-${Date.now()}`);
      mkdirSync(folder, { recursive: true });
      // On-request approvals: Codex asks for the mock's escalated command through Bria's hook.
      const s = await createSession({ db }, { nodeId: node.id, executor: 'codex', folder, permissionMode: 'workspace-write' });
      try {
        await page.goto(`/sessions/${s.id}`);
        const badge = page.getByTestId('session-state');
        await expect(badge).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });
        const marker = `c${Date.now()}`;
        await send(page, `please TOOLSHELL-${marker} now`);
        const card = page.locator('[data-testid="prompt"][data-state="pending"]');
        await expect(card).toBeVisible({ timeout: 120_000 });
        await expect(card).not.toContainText('wants to use Bash');
        await expect(card.getByTestId('prompt-title')).toHaveText('The agent wants to run a shell command');
        await expect(card.getByTestId('prompt-tool-name')).toHaveText('Codex calls it exec_command');
        await expect(card.getByTestId('prompt-command')).toHaveText(`touch ran-${marker}`);
        const prompt = await db.permissionPrompt.findFirstOrThrow({ where: { sessionId: s.id, state: 'pending' } });
        // What the hook reported (the name the card no longer shows).
        expect(prompt.toolName).toBe('Bash');

        // The journal's step of that command waits for the answer: no "running…", no clock.
        const step = page.locator('[data-testid="activity-row"]').filter({ hasText: `touch ran-${marker}` });
        await expect(step).toHaveAttribute('data-awaiting', 'true', { timeout: 60_000 });
        await expect(step.getByTestId('activity-status')).toHaveText('waits for your answer');
        await expect(step.getByTestId('activity-summary')).not.toContainText(/running…|\d+ ms|\d+ s\b|\d+ min/);
        await saveShot(page, `defect-5-codex-request-${viewport.width}`);

        await card.getByRole('button', { name: 'Allow', exact: true }).click();
        await expect(step).toHaveAttribute('data-status', 'ok', { timeout: 120_000 });
        await expect(step).not.toHaveAttribute('data-awaiting', /.*/);
        await expect(badge).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });
      } finally {
        await closeQuietly(s.id);
      }
    });
  });
}
