import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listOutbox } from '../db/repos/outbox.ts';
import { acceptMessage, createSession, getUsageSummary, updateUsageSettings } from '../services/index.ts';
import { getSessionView } from '../services/sessions/session-view.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
beforeEach(async () => {
  rig = await engineRig();
});
afterEach(async () => {
  await rig.close();
});

async function readySession(executor: 'claude' | 'codex' = 'claude') {
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor, folder: '/work/proj', chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { nativeSessionId: '11111111-1111-4111-8111-111111111111', tmuxPane: '%1', pid: 100, pidStartTime: '1' } });
  return s;
}
const delivers = async (sessionId: string) => (await rig.commands(sessionId)).filter((c) => c.type === 'deliver');

/** One whole turn as the agent reports it: receipt, usage, final, completed. */
async function turn(sessionId: string, turnId: string, usage: Record<string, unknown>) {
  const d = (await delivers(sessionId)).at(-1)!;
  const messageId = d.payload.messageId as string;
  await rig.emit(sessionId, 'turn_accepted', { messageId, nativeRecordId: turnId });
  await rig.emit(sessionId, 'usage', { messageId, nativeTurnId: turnId, ...usage });
  await rig.emit(sessionId, 'turn_final', { messageId, nativeTurnId: turnId, text: 'done' });
  await rig.emit(sessionId, 'turn_completed', { messageId, nativeTurnId: turnId });
  return messageId;
}

describe('tokens per turn', () => {
  it('are kept per turn with session, computer and model; totals are sums; a known model is priced', async () => {
    const s = await readySession();
    await acceptMessage(rig.deps, { sessionId: s.id, text: 'one', source: 'web' });
    await rig.engine.settle();
    const m1 = await turn(s.id, 'rec-1', {
      model: 'claude-sonnet-4-5-20250929',
      inputTokens: 1000,
      outputTokens: 200,
      cacheReadTokens: 50_000,
      cacheWriteTokens: 4000,
    });
    await acceptMessage(rig.deps, { sessionId: s.id, text: 'two', source: 'web' });
    await rig.engine.settle();
    await turn(s.id, 'rec-2', { model: 'mock-model', inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 });

    const rows = await rig.db.turnUsage.findMany({ orderBy: { id: 'asc' } });
    expect(
      rows.map((r) => [r.sessionId, r.nodeId, r.messageId, r.executor, r.model, r.inputTokens, r.outputTokens, r.cacheReadTokens, r.cacheWriteTokens]),
    ).toEqual([
      [s.id, rig.nodeId, m1, 'claude', 'claude-sonnet-4-5-20250929', 1000, 200, 50_000, 4000],
      [s.id, rig.nodeId, expect.any(String), 'claude', 'mock-model', 10, 5, 0, 0],
    ]);
    const view = await getSessionView(rig.deps, { sessionId: s.id });
    expect(view.spend.tokens).toEqual({ input: 1010, output: 205, cacheRead: 50_000, cacheWrite: 4000 });
    expect(view.spend.turns).toBe(2);
    // 1000 × $3 + 200 × $15 + 50,000 × $0.30 + 4000 × $3.75 per million; the mock model is not priced.
    expect(view.spend.costUsd).toBeCloseTo(0.003 + 0.003 + 0.015 + 0.015, 10);
    expect(view.spend.unpricedTokens).toBe(15);

    const summary = await getUsageSummary({ db: rig.db, now: () => rig.clock.now() }, { days: 7 });
    expect(summary.days).toEqual([expect.objectContaining({ day: '2026-12-02', nodeId: rig.nodeId, turns: 2 })]);
    expect(summary.sessions.map((x) => [x.sessionId, x.turns])).toEqual([[s.id, 2]]);
    expect(summary.totals.costUsd).toBeCloseTo(0.036, 10);
    expect(summary.unpricedModels).toEqual(['mock-model']);
    // An override prices the mock model, for the past too.
    await updateUsageSettings({ db: rig.db }, { priceOverrides: { 'mock-model': { input: 1000, output: 1000, cacheRead: 0, cacheWrite: 0 } } });
    expect((await getUsageSummary({ db: rig.db, now: () => rig.clock.now() }, { days: 7 })).totals.costUsd).toBeCloseTo(0.036 + 0.015, 10);
  });
});

describe('a usage limit the CLI reported', () => {
  it('holds the next message until the reset, then it goes (a durable timer)', async () => {
    const s = await readySession();
    const resetsAt = rig.clock.t + 3_600_000;
    await rig.emit(s.id, 'limit_state', { executor: 'claude', reached: true, resetsAt, text: "You've hit your session limit", at: rig.clock.t });
    const m = await acceptMessage(rig.deps, { sessionId: s.id, text: 'after the limit', source: 'web' });
    await rig.engine.settle();
    expect(await delivers(s.id)).toHaveLength(0);
    const view = await getSessionView(rig.deps, { sessionId: s.id });
    expect(view.queueWait).toEqual({ messageId: m.message.id, reason: 'usage_limit', until: new Date(resetsAt) });
    expect(await rig.db.sessionTimer.findFirst({ where: { sessionId: s.id, name: 'limit_reset' }, select: { dueAt: true } })).toEqual({
      dueAt: new Date(resetsAt),
    });
    // Another CLI on the same computer is not held.
    const other = await readySession('codex');
    await acceptMessage(rig.deps, { sessionId: other.id, text: 'codex goes', source: 'web' });
    await rig.engine.settle();
    expect(await delivers(other.id)).toHaveLength(1);

    rig.clock.advance(3_600_000 - 1);
    await rig.engine.settle();
    expect(await delivers(s.id)).toHaveLength(0);
    rig.clock.advance(1);
    await rig.engine.settle();
    expect((await delivers(s.id)).map((d) => d.payload.messageId)).toEqual([m.message.id]);
  });

  it('a limit lifted early (the CLI reports it under 100 %) lets waiting sessions go at once', async () => {
    const s = await readySession('codex');
    await rig.emit(s.id, 'limit_state', {
      executor: 'codex',
      reached: true,
      resetsAt: rig.clock.t + 3_600_000,
      windows: [{ name: 'primary', usedPercent: 100, windowMinutes: 300 }],
      at: rig.clock.t,
    });
    await acceptMessage(rig.deps, { sessionId: s.id, text: 'waits', source: 'web' });
    await rig.engine.settle();
    expect(await delivers(s.id)).toHaveLength(0);
    rig.clock.advance(60_000);
    await rig.emit(s.id, 'limit_state', {
      executor: 'codex',
      reached: false,
      windows: [{ name: 'primary', usedPercent: 3, windowMinutes: 300 }],
      at: rig.clock.t,
    });
    expect(await delivers(s.id)).toHaveLength(1);
    // A report older than the stored one (a replay) changes nothing.
    await rig.emit(s.id, 'limit_state', { executor: 'codex', reached: true, resetsAt: rig.clock.t + 3_600_000, at: rig.clock.t - 30_000 });
    expect(await rig.db.usageLimit.findFirst({ select: { reached: true } })).toEqual({ reached: false });
  });
});

describe('budgets', () => {
  it('warn once at 80 %, stop at 100 % with "budget reached", and a raised budget lets the message go', async () => {
    await updateUsageSettings({ db: rig.db }, { budgetSessionUsd: 0.1 });
    const s = await readySession();
    await acceptMessage(rig.deps, { sessionId: s.id, text: 'one', source: 'web' });
    await rig.engine.settle();
    // $0.09 of $0.10 (30,000 input tokens at $3 per million): a warning, the next message still goes.
    await turn(s.id, 'rec-1', { model: 'claude-sonnet-4-5', inputTokens: 30_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
    await acceptMessage(rig.deps, { sessionId: s.id, text: 'two', source: 'web' });
    await rig.engine.settle();
    expect(await delivers(s.id)).toHaveLength(2);
    // The session page warns while the budget is near, and holds nothing yet.
    const near = await getSessionView(rig.deps, { sessionId: s.id });
    expect([near.spend.hold, near.spend.warning]).toEqual([null, { scope: 'session', budgetUsd: 0.1, spentUsd: expect.closeTo(0.09, 10) }]);
    // $0.12: reached; the third message waits.
    await turn(s.id, 'rec-2', { model: 'claude-sonnet-4-5', inputTokens: 10_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
    const third = await acceptMessage(rig.deps, { sessionId: s.id, text: 'three', source: 'web' });
    await rig.engine.settle();
    expect(await delivers(s.id)).toHaveLength(2);
    const view = await getSessionView(rig.deps, { sessionId: s.id });
    expect(view.queueWait).toEqual({ messageId: third.message.id, reason: 'budget_reached' });
    expect(view.spend.hold).toMatchObject({ kind: 'budget_reached', scope: 'session', budgetUsd: 0.1 });
    expect(view.spend.warning).toBeNull();
    const notices = (await listOutbox(rig.db)).filter((o) => o.kind === 'budget').map((o) => o.payload);
    expect(notices).toEqual([
      expect.objectContaining({ scope: 'session', level: 'warn', budgetUsd: 0.1, spentUsd: 0.09 }),
      expect.objectContaining({ scope: 'session', level: 'reached', budgetUsd: 0.1, spentUsd: 0.12 }),
    ]);

    await updateUsageSettings({ db: rig.db }, { budgetSessionUsd: 1 });
    await rig.engine.settle();
    expect((await delivers(s.id)).map((d) => d.payload.messageId).at(-1)).toBe(third.message.id);
  });

  it('the day budget counts every session of the UTC day', async () => {
    await updateUsageSettings({ db: rig.db }, { budgetDayUsd: 0.05 });
    const a = await readySession();
    await acceptMessage(rig.deps, { sessionId: a.id, text: 'one', source: 'web' });
    await rig.engine.settle();
    await turn(a.id, 'rec-1', { model: 'claude-sonnet-4-5', inputTokens: 20_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
    const b = await readySession('codex');
    await acceptMessage(rig.deps, { sessionId: b.id, text: 'other session', source: 'web' });
    await rig.engine.settle();
    expect(await delivers(b.id)).toHaveLength(0);
    expect((await getSessionView(rig.deps, { sessionId: b.id })).spend.hold).toMatchObject({ kind: 'budget_reached', scope: 'day' });
  });
});
