import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listOutbox } from '../db/repos/outbox.ts';
import { acceptMessage, createSession } from '../services/index.ts';
import { getSessionView } from '../services/sessions/session-view.ts';
import { engineRig, type Rig } from './testing.ts';

/**
 * Live progress through the real engine and Postgres: `activity` events become SessionActivity rows
 * keyed by ref (a replay adds none, a finished step never runs again), the session's current
 * activity and context use follow, the queue is untouched, and the final carries the turn's summary.
 */
let rig: Rig;
beforeEach(async () => {
  rig = await engineRig();
});
afterEach(async () => {
  await rig.close();
});

const T0 = Date.parse('2026-12-02T10:00:00Z');
const step = (i: number, status: 'running' | 'ok' | 'error', extra: Record<string, unknown> = {}) => ({
  ref: `toolu_${i}`,
  source: { recordId: `rec-${i}-${status}`, offset: 100 * i },
  nativeTurnId: 'turn-1',
  kind: 'command',
  toolName: 'Bash',
  subject: `echo step-${i}`,
  status,
  startedAt: T0 + i * 1000,
  ...(status !== 'running' ? { endedAt: T0 + i * 1000 + 500, exitCode: status === 'ok' ? 0 : 1, outputHead: `step-${i}` } : {}),
  ...extra,
});

async function runningTurn() {
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'codex', folder: '/work/proj', chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { nativeSessionId: 'codex-native-1', pid: 5 } });
  const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'do the work', source: 'web' });
  await rig.engine.settle();
  rig.clock.advance(1000);
  await rig.emit(s.id, 'turn_accepted', { messageId: a.message.id, nativeTurnId: 'turn-1' });
  return { sessionId: s.id, messageId: a.message.id };
}

describe('activity events', () => {
  it('store one row per ref, follow a step to its end, and never run a finished step again', async () => {
    const { sessionId, messageId } = await runningTurn();
    await rig.emit(sessionId, 'activity', { items: [step(1, 'running')] });
    let rows = await rig.db.sessionActivity.findMany({ where: { sessionId } });
    expect(rows.map((r) => [r.ref, r.status, r.messageId])).toEqual([['toolu_1', 'running', messageId]]);
    expect((await rig.session(sessionId)).activity).toMatchObject({ kind: 'command', subject: 'echo step-1', status: 'running', steps: 1 });

    await rig.emit(sessionId, 'activity', {
      items: [step(1, 'ok'), step(2, 'running')],
      context: { usedTokens: 51_680, windowTokens: 258_400, compactions: 1, windowSource: 'journal' },
    });
    // A replay of the first report (an agent restart re-reads the journal) changes nothing.
    await rig.emit(sessionId, 'activity', { items: [step(1, 'running')] });
    rows = await rig.db.sessionActivity.findMany({ where: { sessionId }, orderBy: { startedAt: 'asc' } });
    expect(rows.map((r) => [r.ref, r.status, r.exitCode, r.outputHead])).toEqual([
      ['toolu_1', 'ok', 0, 'step-1'],
      ['toolu_2', 'running', null, null],
    ]);
    const row = await rig.session(sessionId);
    expect(row.activity).toMatchObject({ subject: 'echo step-2', status: 'running', steps: 2 });
    expect([row.contextUsed, row.contextWindow, row.compactions, row.contextWindowSource]).toEqual([51_680, 258_400, 1, 'journal']);
    // Display only: the queue and the state did not move.
    expect(row.state).toBe('Running');
    expect((await rig.messages(sessionId)).map((m) => m.status)).toEqual(['accepted']);

    const view = await getSessionView(rig.deps, { sessionId });
    expect(view.session.context).toEqual({ usedTokens: 51_680, windowTokens: 258_400, windowSource: 'journal', percent: 20, compactions: 1 });
    expect(view.activity.map((a) => [a.ref, a.status, a.sourceRecordId])).toEqual([
      ['toolu_1', 'ok', 'rec-1-ok'],
      ['toolu_2', 'running', 'rec-2-running'],
    ]);
  });

  it('an older step replayed after a newer one does not replace the current activity', async () => {
    const { sessionId } = await runningTurn();
    await rig.emit(sessionId, 'activity', { items: [step(1, 'ok'), step(2, 'running')] });
    await rig.emit(sessionId, 'activity', { items: [step(1, 'ok')] });
    expect((await rig.session(sessionId)).activity).toMatchObject({ subject: 'echo step-2' });
  });

  it('the final carries the turn summary: commands, files changed, time from acceptance', async () => {
    const { sessionId, messageId } = await runningTurn();
    const edit = {
      ref: 'toolu_e',
      source: { recordId: 'rec-e', offset: 900 },
      nativeTurnId: 'turn-1',
      kind: 'edit',
      toolName: 'Edit',
      subject: 'src/app.ts',
      status: 'ok',
      diff: { added: 12, removed: 3, text: '-a\n+b' },
      startedAt: T0 + 5000,
      endedAt: T0 + 5100,
    };
    await rig.emit(sessionId, 'activity', {
      items: [
        step(1, 'ok'),
        step(2, 'error'),
        edit,
        { ...edit, ref: 'toolu_e2', startedAt: T0 + 6000 },
        {
          ref: 'msg-1',
          source: { recordId: 'msg-1', offset: 950 },
          nativeTurnId: 'turn-1',
          kind: 'text',
          status: 'ok',
          text: 'Now the tests.',
          startedAt: T0 + 7000,
        },
      ],
    });
    rig.clock.advance(180_000);
    await rig.emit(sessionId, 'turn_final', { messageId, nativeTurnId: 'turn-1', text: 'All done.' });
    const [final] = await listOutbox(rig.db, { sessionId, kind: 'final' });
    expect(final?.payload).toMatchObject({ kind: 'final', text: 'All done.', summary: { commands: 2, filesChanged: 1, steps: 4, ms: 180_000 } });
  });

  it('a turn without tool calls has no summary, and a new turn starts with no activity shown', async () => {
    const { sessionId, messageId } = await runningTurn();
    await rig.emit(sessionId, 'turn_final', { messageId, nativeTurnId: 'turn-1', text: 'Just text.' });
    await rig.emit(sessionId, 'turn_completed', { messageId, nativeTurnId: 'turn-1' });
    const [final] = await listOutbox(rig.db, { sessionId, kind: 'final' });
    expect(final?.payload).not.toHaveProperty('summary');

    await rig.emit(sessionId, 'activity', { items: [{ ...step(9, 'ok'), nativeTurnId: 'turn-1' }] });
    const b = await acceptMessage(rig.deps, { sessionId, text: 'next', source: 'web' });
    await rig.engine.settle();
    await rig.emit(sessionId, 'turn_accepted', { messageId: b.message.id, nativeTurnId: 'turn-2' });
    expect((await rig.session(sessionId)).activity).toBeNull();
  });
});

describe('activity rows and the change feed', () => {
  it('a report that changes only activity rows still raises the session change NOTIFY', async () => {
    const { sessionId } = await runningTurn();
    await rig.emit(sessionId, 'activity', { items: [step(1, 'ok'), step(2, 'running')] });
    const pg = await import('pg');
    const c = new pg.default.Client({ connectionString: rig.tdb.url });
    await c.connect();
    try {
      await c.query('listen bria_changes');
      const got = new Promise<string>((resolve) => c.on('notification', (n) => resolve(n.payload ?? '')));
      // An older step's end arrives late: no new current activity, so the session row is not written.
      const before = (await rig.session(sessionId)).updatedAt;
      await rig.emit(sessionId, 'activity', { items: [{ ...step(1, 'ok'), outputHead: 'late output' }] });
      expect((await rig.session(sessionId)).updatedAt).toEqual(before);
      expect(await got).toBe(`s:${sessionId}`);
    } finally {
      await c.end();
    }
  });
});
