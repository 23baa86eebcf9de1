// "Send now" and scheduled messages (issue 33) with the real CLIs in tmux under the real agent, hub,
// engine and Postgres. Waits are on events (a model request, a message status, a schedule row),
// never on a time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelSchedule, createSchedule, listSchedules, sendMessageNow } from '../../packages/core/src/services/index.ts';
import { type Executor, startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';
import { reached } from './invariants.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
  await sys.startAgent();
}, 120_000);
afterAll(async () => {
  await sys?.dispose();
});

describe.each(['claude', 'codex'] as Executor[])('%s', (executor) => {
  it('send now: the running turn is interrupted the CLI’s way, its outcome is truthful, and the text is the next request, once', async () => {
    const s = await sys.createSession(executor, sys.folder(`send-now-${executor}`));
    const main = `STALL main ${executor} now-one`;
    const now = `now ${executor} two, instead`;
    await sys.send(s.id, main);
    await sys.mocks[executor].waitForRequest((r) => r.kind === 'turn' && (r.userText ?? '').endsWith(main), 60_000);
    await sys.waitState(s.id, 'Running');
    const native = (await sys.session(s.id)).nativeSessionId!;

    const r = await sendMessageNow(sys.deps, { sessionId: s.id, text: now, source: 'web', sourceKey: `web:now-${executor}` });
    expect(r.interrupted).toBe(true);
    const msgs = await sys.waitMessages(s.id, (st) => st.length === 2 && st[1] === 'completed', 120_000);
    // The stalled turn was interrupted, and says so; the text went next as its own request.
    expect(msgs[0]!.status).toBe('terminal_failed');
    expect(msgs[1]!.text).toBe(now);
    expect(msgs[1]!.mainMessageId).toBeNull();
    // Claude puts its own interrupt marker before the next prompt it sends (the CLI's behaviour, kept).
    const said = /^MOCK-REPLY-\d+: you said "([\s\S]*)"$/.exec(msgs[1]!.finalText ?? '')?.[1];
    expect(said?.endsWith(now), msgs[1]!.finalText ?? '').toBe(true);
    const before = said?.slice(0, -now.length) ?? '';
    if (executor === 'codex' || before !== '')
      expect(before, JSON.stringify(before)).toMatch(executor === 'claude' ? /^\[Request interrupted by user[^\]]*\]\s*$/ : /^$/);
    expect(reached(sys, executor, native, now)).toBe(1);
    // Never typed into the turn being stopped: the model never got the two texts in one request.
    expect(sys.turns(executor, native).some((q) => (q.userText ?? '').includes(main) && (q.userText ?? '').includes(now))).toBe(false);
    expect(await sys.db.agentCommand.count({ where: { sessionId: s.id, type: 'interrupt' } })).toBeGreaterThanOrEqual(1);
  }, 300_000);

  it('a scheduled message due while the hub is down is queued by the engine once and delivered once when the hub is back', async () => {
    const s = await sys.createSession(executor, sys.folder(`schedule-hub-${executor}`));
    await sys.waitState(s.id, 'Ready', 90_000);
    const text = `scheduled ${executor} across the hub restart`;
    const sched = await createSchedule(sys.deps, { sessionId: s.id, text, kind: 'once', runAt: new Date(Date.now() + 3_000), timeZone: 'UTC', from: 'web' });
    await sys.restartHub(0, async () => {
      // The hub is down at the due time: the engine still fires the schedule (the queue is Postgres).
      await waitUntil('the schedule fired', async () => (await listSchedules(sys.deps, s.id)).find((x) => x.id === sched.id && x.status === 'done'), 60_000);
    });
    const msgs = await sys.waitMessages(s.id, (st) => st.length === 1 && st[0] === 'completed', 120_000);
    expect(msgs[0]).toMatchObject({ text, source: 'schedule', sourceKey: `schedule:${sched.id}:${sched.nextRunAt!.getTime()}` });
    const native = (await sys.session(s.id)).nativeSessionId!;
    expect(reached(sys, executor, native, text)).toBe(1);
    expect((await listSchedules(sys.deps, s.id))[0]).toMatchObject({ status: 'done', runs: 1, lastResult: `sent as #${msgs[0]!.seq}` });
  }, 300_000);

  it('a recurring message is skipped while a turn runs (every minute, "skip"): nothing reaches the CLI, the skip is counted', async () => {
    const s = await sys.createSession(executor, sys.folder(`schedule-skip-${executor}`));
    const main = `STALL main ${executor} skip-one`;
    await sys.send(s.id, main);
    await sys.mocks[executor].waitForRequest((r) => r.kind === 'turn' && (r.userText ?? '').endsWith(main), 60_000);
    await sys.waitState(s.id, 'Running');
    // Made while the turn runs, so its first occurrence (the next whole minute) meets the running turn.
    const text = `every minute ${executor} while busy`;
    const sched = await createSchedule(sys.deps, { sessionId: s.id, text, kind: 'recurring', cron: '* * * * *', ifBusy: 'skip', timeZone: 'UTC', from: 'web' });
    const skipped = await waitUntil(
      'the occurrence skipped',
      async () => (await listSchedules(sys.deps, s.id)).find((x) => x.id === sched.id && x.skips >= 1),
      90_000,
    );
    expect(skipped).toMatchObject({ status: 'active', runs: 0, lastResult: 'skipped: a turn was running' });
    expect(skipped.nextRunAt!.getTime()).toBeGreaterThan(sched.nextRunAt!.getTime());
    await cancelSchedule(sys.deps, { scheduleId: sched.id, sessionId: s.id });
    expect(await sys.db.message.count({ where: { sessionId: s.id, source: 'schedule' } })).toBe(0);
    const native = (await sys.session(s.id)).nativeSessionId!;
    expect(sys.turns(executor, native).some((q) => (q.userText ?? '').includes(text))).toBe(false);
    expect((await sys.session(s.id)).state).toBe('Running');
    await sys.stop(s.id);
    await sys.waitState(s.id, 'Ready', 60_000);
  }, 300_000);
});
