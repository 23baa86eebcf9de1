import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

let db: Db;
test.beforeEach(({ state }) => {
  db ??= createDb(state.databaseUrl, { max: 2 });
});
test.afterAll(async () => {
  await db?.$disconnect();
});

const localNode = async () => (await db.node.findFirstOrThrow({ where: { isLocal: true } })).id;

/**
 * A working session of the local computer written straight to the database, as the engine stores
 * one (its CLI is not started): what is checked is what the page makes of its rows. Archived
 * afterwards, so no other spec sees it open.
 */
async function storedSession(o: { workDir: string; title: string }) {
  const sessionId = randomUUID();
  const messageId = randomUUID();
  const t0 = Date.now() - 600_000;
  const at = (s: number) => new Date(t0 + s * 1000);
  await db.session.create({
    data: {
      id: sessionId,
      nodeId: await localNode(),
      executor: 'claude',
      folder: path.join(o.workDir, `evidence-${sessionId.slice(0, 8)}`),
      nativeSessionId: randomUUID(),
      state: 'Running',
      title: o.title,
    },
  });
  await db.message.create({
    data: {
      id: messageId,
      sessionId,
      seq: 1,
      source: 'web',
      text: 'Check the build',
      status: 'accepted',
      acceptedAt: at(0),
      nativeRecordId: 'turn-1',
      createdAt: at(0),
    },
  });
  return {
    sessionId,
    messageId,
    at,
    archive: () => db.session.update({ where: { id: sessionId }, data: { state: 'Archived', archivedAt: new Date(), archiveSortAt: new Date() } }),
  };
}

async function pageWidth(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth);
}

/** The evidence and computer-page defects of issue 31 (in the numbering), each at a desktop and a phone size. */
for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test.describe(`${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test('6: record ids under a turn’s steps are shown only on demand', async ({ signedInPage: page, state, saveShot }) => {
      test.setTimeout(90_000);
      const s = await storedSession({ workDir: state.workDir, title: 'Record ids on demand' });
      const step = (o: { ref: string; kind: string; status: string; start: number } & Record<string, unknown>) => {
        const { ref, start, ...rest } = o;
        return {
          sessionId: s.sessionId,
          ref,
          nativeTurnId: 'turn-1',
          messageId: s.messageId,
          sourceRecordId: `b574d15a-${ref}`,
          sourceOffset: 13_000 + start,
          eventSeq: 30 + start,
          startedAt: s.at(start),
          endedAt: s.at(start + 1),
          ...rest,
        };
      };
      try {
        await db.sessionActivity.createMany({
          data: [
            step({ ref: 'text-1', kind: 'text', status: 'ok', start: 1, text: 'I will build it first.' }),
            step({ ref: 'cmd-1', kind: 'command', toolName: 'Bash', subject: 'npm run build', status: 'ok', exitCode: 0, outputHead: 'built', start: 2 }),
          ],
        });
        await page.goto(`/sessions/${s.sessionId}`);
        const turn = page.getByTestId('turn').filter({ hasText: 'Check the build' });
        await expect(turn.getByTestId('activity-row')).toHaveCount(2);
        // No record id anywhere on the page until asked for.
        await expect(turn.getByTestId('activity-text')).toContainText('I will build it first.');
        // (In the DOM, inside closed toggles, but not on screen.)
        await expect(page.getByText(/journal record/)).toHaveCount(2);
        await expect(page.getByText(/journal record/).filter({ visible: true })).toHaveCount(0);
        await expect(page.getByText(/b574d15a/).filter({ visible: true })).toHaveCount(0);
        const text = turn.locator('[data-testid="activity-row"][data-ref="text-1"]');
        await expect(text.getByTestId('activity-source')).toBeHidden();
        await expect(text.getByTestId('activity-source-toggle').locator('summary')).toHaveText('show source');
        // Opened, a tool step shows its output, and still not its record.
        const command = turn.locator('[data-testid="activity-row"][data-ref="cmd-1"]');
        await command.getByTestId('activity-summary').click();
        await expect(command.getByTestId('activity-output')).toHaveText('built');
        await expect(command.getByTestId('activity-source')).toBeHidden();
        await saveShot(page, `defect-6-sources-hidden-${viewport.width}`);
        // On demand: the record each step rests on.
        await text.getByTestId('activity-source-toggle').locator('summary').click();
        await expect(text.getByTestId('activity-source')).toHaveText('source: journal record b574d15a-text-1 @ 13001, event #31');
        await command.getByTestId('activity-source-toggle').locator('summary').click();
        await expect(command.getByTestId('activity-source')).toHaveText('source: journal record b574d15a-cmd-1 @ 13002, event #32');
        expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      } finally {
        await s.archive();
      }
    });

    test('7: 128 outdated reports set aside after a warm restart read as one line with the count', async ({ signedInPage: page, state, saveShot }) => {
      test.setTimeout(90_000);
      const s = await storedSession({ workDir: state.workDir, title: 'Folded evidence' });
      const refused = (i: number, type = 'turn_started') => ({
        sessionId: s.sessionId,
        event: `refused:${type}`,
        actor: 'agent',
        fromState: 'Running' as const,
        toState: 'Running' as const,
        evidence: { seq: 13_200 + i, code: 'STALE_GENERATION', generation: 1, currentGeneration: 2 },
        createdAt: s.at(10 + i / 100),
      });
      try {
        await db.sessionEvidence.createMany({
          data: [
            { sessionId: s.sessionId, event: 'create', actor: 'user', fromState: null, toState: 'Starting', createdAt: s.at(0) },
            ...Array.from({ length: 128 }, (_, i) => refused(i)),
            refused(200, 'activity'),
            { sessionId: s.sessionId, event: 'stop_requested', actor: 'user', fromState: 'Running', toState: 'Running', createdAt: s.at(20) },
          ],
        });
        await page.goto(`/sessions/${s.sessionId}`);
        await page.getByTestId('session-details').locator(':scope > summary').click();
        const rows = page.getByTestId('evidence-row');
        // Newest first: the person's stop, the other kind of report, the 128 as one, the start.
        await expect(rows).toHaveCount(4);
        await expect(rows.nth(0)).toHaveAttribute('data-event', 'stop_requested');
        await expect(rows.nth(1)).toHaveAttribute('data-event', 'refused:activity');
        await expect(rows.nth(1)).toHaveAttribute('data-count', '1');
        await expect(rows.nth(1).getByTestId('evidence-count')).toHaveCount(0);
        const folded = rows.nth(2);
        await expect(folded).toHaveAttribute('data-event', 'refused:turn_started');
        await expect(folded).toHaveAttribute('data-count', '128');
        await expect(folded.getByTestId('evidence-words')).toHaveText(
          'An outdated report from the computer was set aside (The agent started working on a message).',
        );
        await expect(folded.getByTestId('evidence-count')).toHaveText('×128');
        await expect(rows.nth(3)).toHaveAttribute('data-event', 'create');
        // The raw record (its seq and code) only on demand, with the run's first time.
        await expect(folded.getByTestId('evidence-folded')).toBeHidden();
        await expect(folded.getByText(/STALE_GENERATION/)).toBeHidden();
        await folded.locator('details > summary').click();
        await expect(folded.getByTestId('evidence-folded')).toContainText('128 entries in a row, the first at');
        await expect(folded.locator('pre')).toContainText('"seq": 13327');
        // The timeline stays short (the page was 16,840 px tall).
        const box = await page.getByTestId('evidence').boundingBox();
        expect(box?.height ?? Number.POSITIVE_INFINITY).toBeLessThan(1200);
        expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
        await saveShot(page, `defect-7-folded-evidence-${viewport.width}`);
      } finally {
        await s.archive();
      }
    });

    test('8: a removed computer’s page names it and its removal date; an unknown or bad id says no computer has it, once', async ({
      signedInPage: page,
      saveShot,
    }) => {
      test.setTimeout(90_000);
      const removedId = randomUUID();
      const name = `old laptop ${removedId.slice(0, 6)}`;
      await db.node.create({ data: { id: removedId, name, removedAt: new Date('2026-11-30T12:00:00Z') } });
      const archivedId = randomUUID();
      const title = `old work ${archivedId.slice(0, 6)}`;
      await db.session.create({
        data: {
          id: archivedId,
          nodeId: removedId,
          executor: 'codex',
          folder: '/srv/old',
          nativeSessionId: randomUUID(),
          state: 'Archived',
          title,
          archivedAt: new Date('2026-11-29T12:00:00Z'),
          archiveSortAt: new Date('2026-11-29T12:00:00Z'),
        },
      });
      try {
        for (const url of [`/nodes/${removedId}`, `/nodes/${removedId}/new`]) {
          await page.goto(url);
          const gone = page.getByTestId('computer-gone');
          await expect(gone).toHaveAttribute('data-status', 'removed');
          await expect(gone.getByRole('heading', { level: 1 })).toHaveText(name);
          await expect(gone.getByTestId('computer-gone-text')).toHaveText(
            'This computer was removed on November 30, 2026. Its closed sessions stay in the archive.',
          );
          await expect(page.getByTestId('computer-gone')).toHaveCount(1);
          await expect(page.getByText('The input was not accepted.')).toHaveCount(0);
          expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
        }
        // Its closed sessions are still there, on its page.
        await page.goto(`/nodes/${removedId}`);
        await expect(page.getByTestId('archived-session')).toHaveCount(1);
        await expect(page.getByTestId('archived-session')).toContainText(title);
        await saveShot(page, `defect-8-removed-computer-${viewport.width}`);

        for (const url of [`/nodes/${randomUUID()}`, '/nodes/not-a-computer-id', `/nodes/${randomUUID()}/new`, '/nodes/xyz/new']) {
          await page.goto(url);
          const gone = page.getByTestId('computer-gone');
          await expect(gone, url).toHaveAttribute('data-status', 'unknown');
          await expect(gone.getByRole('heading', { level: 1 })).toHaveText('No computer with this id');
          await expect(page.getByTestId('computer-gone')).toHaveCount(1);
          await expect(page.getByText('The input was not accepted.')).toHaveCount(0);
          expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
        }
        await saveShot(page, `defect-8-unknown-computer-${viewport.width}`);
        // A way back.
        await page.getByTestId('computer-gone').getByRole('link', { name: 'All computers' }).click();
        await expect(page).toHaveURL(/\/$/);
        await expect(page.locator('[data-testid="node-card"][data-node-name="this computer"]')).toBeVisible();
      } finally {
        await db.session.delete({ where: { id: archivedId } });
        await db.node.delete({ where: { id: removedId } });
      }
    });

    test('9: a new computer’s CLIs read “not reported yet” until its agent reports them; then only the installed ones are ticked', async ({
      signedInPage: page,
      saveShot,
    }) => {
      test.setTimeout(90_000);
      const nodeId = randomUUID();
      const name = `new box ${nodeId.slice(0, 6)}`;
      await db.node.create({ data: { id: nodeId, name } });
      try {
        await page.goto('/');
        await expect(page.getByTestId('live-status')).toHaveText('Live');
        const card = page.locator(`[data-testid="node-card"][data-node-name="${name}"]`);
        await expect(card.getByTestId('executors-unreported')).toHaveText(
          'Not reported yet: the computer’s agent says which CLIs are installed when it first connects.',
        );
        await expect(card.getByRole('checkbox')).toHaveCount(0);
        // The local computer's agent reported both pinned CLIs: both ticked there.
        const local = page.locator('[data-testid="node-card"][data-node-name="this computer"]');
        await expect(local.getByRole('checkbox', { name: 'Claude Code' })).toBeChecked();
        await expect(local.getByRole('checkbox', { name: 'Codex' })).toBeChecked();
        expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
        await saveShot(page, `defect-9-not-reported-${viewport.width}`);

        // Its agent says hello with Claude only (as the hub stores a hello): the card follows without a reload.
        await db.node.update({ where: { id: nodeId }, data: { agentVersion: '0.1.0', missingExecutors: ['codex'] } });
        await expect(card.getByTestId('executors-unreported')).toHaveCount(0);
        await expect(card.getByRole('checkbox', { name: 'Claude Code' })).toBeChecked();
        const codex = card.getByRole('checkbox', { name: 'Codex' });
        await expect(codex).not.toBeChecked();
        await expect(codex).toBeDisabled();
        await expect(card.locator('[data-executor="codex"]')).toContainText('(not installed)');
      } finally {
        await db.node.delete({ where: { id: nodeId } });
      }
    });
  });
}
