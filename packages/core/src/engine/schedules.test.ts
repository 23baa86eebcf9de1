import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOutbox } from '../db/repos/outbox.ts';
import { acceptMessage, cancelSchedule, createSchedule, createSession, listSchedules } from '../services/index.ts';
import { fireDueSchedules } from './schedules.ts';
import { engineRig, type Rig } from './testing.ts';

/**
 * Scheduled and recurring messages (issue 33) over the real engine and database: an occurrence
 * enters the queue once — across a crash between queueing and moving on, and with two engines
 * firing together; a recurring one skips or waits while a turn runs; a closed session is resumed
 * only when asked.
 */
let rig: Rig;
beforeAll(async () => {
  rig = await engineRig();
});
afterAll(async () => {
  await rig?.close();
});
const d = () => ({ ...rig.deps, jitter: () => 0.5 });
const MIN = 60_000;

async function readySession(folder: string) {
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder, chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100 } });
  return s.id;
}
const scheduled = (sessionId: string) => rig.db.message.findMany({ where: { sessionId, source: 'schedule' }, orderBy: { seq: 'asc' } });

describe('scheduled messages', () => {
  it('a once message is queued at its time, once, and the schedule says so', async () => {
    const sessionId = await readySession('/work/sched-once');
    const s = await createSchedule(rig.deps, {
      sessionId,
      text: 'run the nightly check',
      kind: 'once',
      runAt: new Date(rig.clock.t + 5 * MIN),
      timeZone: 'UTC',
      from: 'web',
    });
    expect(await fireDueSchedules(d())).toBe(0);
    rig.clock.advance(5 * MIN);
    await fireDueSchedules(d());
    await fireDueSchedules(d());
    const msgs = await scheduled(sessionId);
    expect(msgs.map((m) => [m.text, m.sourceKey])).toEqual([['run the nightly check', `schedule:${s.id}:${s.nextRunAt?.getTime()}`]]);
    const after = (await listSchedules(rig.deps, sessionId))[0];
    expect(after).toMatchObject({ status: 'done', runs: 1, nextRunAt: null, lastResult: `sent as #${msgs[0]?.seq}` });
  });

  it('an engine that died after queueing and before moving on: the repeat is a duplicate; two engines at once queue it once', async () => {
    const sessionId = await readySession('/work/sched-crash');
    const a = await createSchedule(rig.deps, { sessionId, text: 'crash once', kind: 'once', runAt: new Date(rig.clock.t + MIN), timeZone: 'UTC', from: 'web' });
    rig.clock.advance(MIN);
    // What the dead engine did: the message is in the queue, the schedule still due.
    await acceptMessage(rig.deps, { sessionId, text: 'crash once', source: 'schedule', sourceKey: `schedule:${a.id}:${a.nextRunAt?.getTime()}` });
    await fireDueSchedules(d());
    expect((await scheduled(sessionId)).map((m) => m.text)).toEqual(['crash once']);
    expect((await listSchedules(rig.deps, sessionId))[0]).toMatchObject({ status: 'done', runs: 1 });

    const b = await createSchedule(rig.deps, {
      sessionId,
      text: 'two engines',
      kind: 'once',
      runAt: new Date(rig.clock.t + MIN),
      timeZone: 'UTC',
      from: 'web',
    });
    rig.clock.advance(MIN);
    await Promise.all([fireDueSchedules(d()), fireDueSchedules(d()), fireDueSchedules(d())]);
    expect((await scheduled(sessionId)).filter((m) => m.text === 'two engines')).toHaveLength(1);
    expect((await listSchedules(rig.deps, sessionId)).find((x) => x.id === b.id)).toMatchObject({ status: 'done', runs: 1 });
  });

  it('queued, then the session closed before the schedule was moved on: the retry records it sent, says nothing (chaos seed 360039)', async () => {
    const sessionId = await readySession('/work/sched-crash-closed');
    const once = await createSchedule(rig.deps, {
      sessionId,
      text: 'queued then closed',
      kind: 'once',
      runAt: new Date(rig.clock.t + MIN),
      timeZone: 'UTC',
      from: 'web',
    });
    const hourly = await createSchedule(rig.deps, {
      sessionId,
      text: 'hourly then closed',
      kind: 'recurring',
      cron: '0 * * * *',
      timeZone: 'UTC',
      from: 'web',
    });
    const hourlyAt = hourly.nextRunAt?.getTime() ?? 0;
    rig.clock.advance(Math.max(MIN, hourlyAt - rig.clock.t));
    // What the cut-off firing did: both occurrences are in the queue, both schedules still due.
    const a = await acceptMessage(rig.deps, {
      sessionId,
      text: 'queued then closed',
      source: 'schedule',
      sourceKey: `schedule:${once.id}:${once.nextRunAt?.getTime()}`,
    });
    const b = await acceptMessage(rig.deps, { sessionId, text: 'hourly then closed', source: 'schedule', sourceKey: `schedule:${hourly.id}:${hourlyAt}` });
    await rig.db.session.update({ where: { id: sessionId }, data: { state: 'Archived' } });
    await fireDueSchedules(d());
    const list = await listSchedules(rig.deps, sessionId);
    expect(list.find((x) => x.id === once.id)).toMatchObject({ status: 'done', runs: 1, skips: 0, lastResult: `sent as #${a.message.seq}` });
    expect(list.find((x) => x.id === hourly.id)).toMatchObject({ status: 'active', runs: 1, skips: 0, lastResult: `sent as #${b.message.seq}` });
    expect((await scheduled(sessionId)).map((m) => m.text)).toEqual(['queued then closed', 'hourly then closed']);
    expect(await listOutbox(rig.db, { sessionId, kind: 'schedule_failed' })).toEqual([]);
  });

  it('a recurring message skips while a turn runs (skip), or waits for the turn to end (wait)', async () => {
    const sessionId = await readySession('/work/sched-busy');
    const m = await acceptMessage(rig.deps, { sessionId, text: 'long job', source: 'web' });
    await rig.engine.settle();
    await rig.emit(sessionId, 'turn_accepted', { messageId: m.message.id, nativeRecordId: `rec-${sessionId}`, nativeTurnId: `turn-${sessionId}` });
    expect((await rig.session(sessionId)).state).toBe('Running');

    const skip = await createSchedule(rig.deps, {
      sessionId,
      text: 'status?',
      kind: 'recurring',
      cron: '*/10 * * * *',
      ifBusy: 'skip',
      timeZone: 'UTC',
      from: 'web',
    });
    const wait = await createSchedule(rig.deps, {
      sessionId,
      text: 'report',
      kind: 'recurring',
      cron: '*/10 * * * *',
      ifBusy: 'wait',
      timeZone: 'UTC',
      from: 'web',
    });
    const due = skip.nextRunAt as Date;
    rig.clock.t = due.getTime() + 1000;
    await fireDueSchedules(d());
    const list = await listSchedules(rig.deps, sessionId);
    expect(list.find((x) => x.id === skip.id)).toMatchObject({
      status: 'active',
      skips: 1,
      runs: 0,
      lastResult: 'skipped: a turn was running',
      nextRunAt: new Date(due.getTime() + 10 * MIN),
    });
    expect(list.find((x) => x.id === wait.id)).toMatchObject({
      status: 'active',
      runs: 0,
      nextRunAt: due,
      lastResult: 'waiting: the previous run or a turn is still going',
    });
    expect(await scheduled(sessionId)).toEqual([]);

    await rig.emit(sessionId, 'turn_final', { messageId: m.message.id, nativeTurnId: `turn-${sessionId}`, text: 'done' });
    await rig.emit(sessionId, 'turn_completed', { messageId: m.message.id, nativeTurnId: `turn-${sessionId}` });
    await fireDueSchedules(d());
    expect((await scheduled(sessionId)).map((x) => x.text)).toEqual(['report']);
    expect((await listSchedules(rig.deps, sessionId)).find((x) => x.id === wait.id)).toMatchObject({ runs: 1, nextRunAt: new Date(due.getTime() + 10 * MIN) });
    // No turn runs now: "status?" goes at its next occurrence. "report" waits: its previous run
    // (the message above) has not ended.
    rig.clock.t = due.getTime() + 10 * MIN + 1000;
    await fireDueSchedules(d());
    expect((await scheduled(sessionId)).map((x) => x.text)).toEqual(['report', 'status?']);
    expect((await listSchedules(rig.deps, sessionId)).find((x) => x.id === wait.id)).toMatchObject({
      runs: 1,
      lastResult: 'waiting: the previous run or a turn is still going',
    });
    for (const id of [skip.id, wait.id]) await cancelSchedule(rig.deps, { scheduleId: id, sessionId });
    rig.clock.t = due.getTime() + 40 * MIN;
    await fireDueSchedules(d());
    expect((await scheduled(sessionId)).map((x) => x.text)).toEqual(['report', 'status?']);
  });

  it('a closed session: a once message is not sent (said why) unless "resume first" was chosen', async () => {
    const sessionId = await readySession('/work/sched-closed');
    await rig.db.session.update({ where: { id: sessionId }, data: { nativeSessionId: '7b0c3f52-2b8c-4bd6-9a59-4f6f4b0e0c11' } });
    const plain = await createSchedule(rig.deps, { sessionId, text: 'closed', kind: 'once', runAt: new Date(rig.clock.t + MIN), timeZone: 'UTC', from: 'web' });
    const resume = await createSchedule(rig.deps, {
      sessionId,
      text: 'wake up',
      kind: 'once',
      // After the plain one: once resumed, the session is open again.
      runAt: new Date(rig.clock.t + 2 * MIN),
      timeZone: 'UTC',
      from: 'web',
      resumeIfClosed: true,
    });
    await rig.db.session.update({ where: { id: sessionId }, data: { state: 'Archived' } });
    rig.clock.advance(MIN);
    await fireDueSchedules(d());
    rig.clock.advance(MIN);
    await fireDueSchedules(d());
    const list = await listSchedules(rig.deps, sessionId);
    expect(list.find((x) => x.id === plain.id)).toMatchObject({ status: 'failed', lastResult: 'not sent: the session is closed' });
    expect(list.find((x) => x.id === resume.id)).toMatchObject({
      status: 'done',
      lastResult: expect.stringMatching(/^sent as #\d+ \(after resuming the session\)$/),
    });
    expect((await rig.session(sessionId)).state).toBe('Resuming');
    expect((await scheduled(sessionId)).map((x) => x.text)).toEqual(['wake up']);
    expect((await rig.commands(sessionId)).map((c) => c.type)).toContain('resume_session');
    // The one not sent is told to the chat, once, with its text; the one sent is not.
    const notices = await listOutbox(rig.db, { sessionId, kind: 'schedule_failed' });
    expect(notices.map((n) => n.payload)).toEqual([
      expect.objectContaining({ kind: 'schedule_failed', scheduleId: plain.id, reason: 'closed', text: 'closed' }),
    ]);
  });

  it('a recurring message of a closed session is told once, not at every occurrence; a re-run of the same occurrence adds nothing', async () => {
    const sessionId = await readySession('/work/sched-closed-recurring');
    const r = await createSchedule(rig.deps, { sessionId, text: 'hourly digest', kind: 'recurring', cron: '0 * * * *', timeZone: 'UTC', from: 'web' });
    await rig.db.session.update({ where: { id: sessionId }, data: { state: 'Archived' } });
    for (let i = 0; i < 3; i++) {
      rig.clock.advance(60 * MIN);
      await Promise.all([fireDueSchedules(d()), fireDueSchedules(d())]);
    }
    const row = (await listSchedules(rig.deps, sessionId)).find((x) => x.id === r.id);
    expect(row).toMatchObject({ status: 'active', skips: 3, lastResult: 'skipped: the session is closed' });
    const notices = await listOutbox(rig.db, { sessionId, kind: 'schedule_failed' });
    expect(notices.map((n) => n.payload)).toEqual([expect.objectContaining({ scheduleId: r.id, reason: 'closed', text: 'hourly digest' })]);
  });

  it('refuses a time in the past, a seconds cron and a cron that never runs, in words', async () => {
    const sessionId = await readySession('/work/sched-refuse');
    await expect(
      createSchedule(rig.deps, { sessionId, text: 'x', kind: 'once', runAt: new Date(rig.clock.t - 1000), timeZone: 'UTC', from: 'web' }),
    ).rejects.toMatchObject({
      userMessage: 'schedules.in_past',
    });
    await expect(
      createSchedule(rig.deps, { sessionId, text: 'x', kind: 'recurring', cron: '* * * * * *', timeZone: 'UTC', from: 'web' }),
    ).rejects.toMatchObject({
      userMessage: 'schedules.cron_seconds',
    });
    await expect(createSchedule(rig.deps, { sessionId, text: 'x', kind: 'recurring', cron: '0 0 31 2 *', timeZone: 'UTC', from: 'web' })).rejects.toMatchObject(
      {
        userMessage: 'schedules.never_runs',
      },
    );
    expect(await listSchedules(rig.deps, sessionId)).toEqual([]);
  });
});
