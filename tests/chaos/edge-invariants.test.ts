import { describe, expect, it } from 'vitest';
import { type ForgeRecord, forgeViolations, type PushRecord, pushViolations, type ScheduleRow, scheduleViolations } from './edge-invariants.ts';

// Each invariant of the hand-over round fed a recorded violation (and its clean twin): a checker
// that cannot fail would pass every chaos run.
const NOW = Date.parse('2026-12-07T06:00:00Z');
const row = (o: Partial<ScheduleRow>): ScheduleRow => ({
  id: 'aaaaaaaa-0000-4000-8000-000000000001',
  kind: 'once',
  status: 'done',
  nextRunAt: null,
  leaseUntil: null,
  queued: 1,
  ...o,
});

describe('schedule invariants', () => {
  it('a schedule that fired once is clean', () => {
    expect(scheduleViolations([row({})], NOW, [{ id: row({}).id, outage: 'hub_kill', dueAt: NOW - 60_000 }])).toEqual([]);
  });

  it('reports a once schedule fired twice', () => {
    expect(scheduleViolations([row({ queued: 2 })], NOW)).toEqual(['schedule aaaaaaaa fired 2 times']);
  });

  it('reports a schedule that says sent but holds no message (lost)', () => {
    expect(scheduleViolations([row({ queued: 0 })], NOW)).toEqual(['schedule aaaaaaaa says sent but 0 messages hold it']);
  });

  it('reports one overdue and unclaimed, but not one a firing engine still holds', () => {
    const due = new Date(NOW - 60_000);
    expect(scheduleViolations([row({ status: 'active', nextRunAt: due, queued: 0 })], NOW)).toEqual([
      `schedule aaaaaaaa due at ${due.toISOString()} never fired`,
    ]);
    expect(scheduleViolations([row({ status: 'active', nextRunAt: due, queued: 0, leaseUntil: new Date(NOW + 5_000) })], NOW)).toEqual([]);
  });

  it('reports a schedule due during an outage still waiting at rest, or gone', () => {
    const rec = { id: row({}).id, outage: 'pg_restart' as const, dueAt: NOW - 10_000 };
    expect(scheduleViolations([row({ status: 'active', nextRunAt: new Date(NOW - 10_000), queued: 0 })], NOW, [rec])).toEqual([
      'schedule aaaaaaaa due during a pg_restart was still waiting at rest',
    ]);
    expect(scheduleViolations([], NOW, [rec])).toEqual(['schedule aaaaaaaa (due during a pg_restart) disappeared']);
  });
});

describe('push invariants', () => {
  const rec = (mode: PushRecord['mode'], o: Partial<PushRecord> = {}): PushRecord => ({
    mode,
    badId: 'bad-id',
    okId: 'ok-id',
    bad: 'bad-1',
    ok: 'ok-1',
    enqueuedAt: NOW,
    disrupted: false,
    ...o,
  });
  const outcome = (subscribed: string[], okSentAt: number | null, tried = 1) => ({
    subscribed: new Set(subscribed),
    okSentAt: new Map([['ok-id', okSentAt]]),
    requests: () => tried,
  });

  it('clean: a 410 device removed, a 500 device kept, the healthy push sent at once', () => {
    expect(pushViolations([rec('gone')], outcome(['ok-id'], NOW + 300))).toEqual([]);
    expect(pushViolations([rec('error')], outcome(['ok-id', 'bad-id'], NOW + 300))).toEqual([]);
  });

  it('reports a 410 device kept, a transient one removed, a failing device never tried', () => {
    expect(pushViolations([rec('gone')], outcome(['ok-id', 'bad-id'], NOW + 300))).toEqual(['device bad-1 answered 410 and is still subscribed']);
    expect(pushViolations([rec('timeout')], outcome(['ok-id'], NOW + 300))).toEqual(['device bad-1 (timeout, transient) was removed']);
    expect(pushViolations([rec('gone')], outcome(['ok-id'], NOW + 300, 0))).toEqual(['push to the gone device bad-1 was never tried']);
  });

  it('reports the healthy push lost, or held behind the failing device unless another fault intervened', () => {
    expect(pushViolations([rec('error')], outcome(['ok-id', 'bad-id'], null))).toEqual([
      'the test push to healthy device ok-1 was never sent (beside a error device)',
    ]);
    expect(pushViolations([rec('timeout')], outcome(['ok-id', 'bad-id'], NOW + 10_500))).toEqual([
      'the test push to healthy device ok-1 took 10500 ms beside a timeout device',
    ]);
    expect(pushViolations([rec('timeout', { disrupted: true })], outcome(['ok-id', 'bad-id'], NOW + 10_500))).toEqual([]);
  });
});

describe('forged hook input invariants', () => {
  const rec = (o: Partial<ForgeRecord> = {}): ForgeRecord => ({
    kind: 'forged_prompt',
    token: 'forged-1234',
    sessionId: 'bbbbbbbb-0000-4000-8000-000000000002',
    answer: '{"type":"refused","reason":"peer_outside_session"}\n',
    before: { pid: 10, connectedAt: 1, disruptions: 0 },
    after: { pid: 10, connectedAt: 1, disruptions: 0 },
    ...o,
  });

  it('clean: refused, no prompt, same connection', () => {
    expect(forgeViolations([rec()], () => 0)).toEqual([]);
  });

  it('reports a forged prompt stored, an answer that is no refusal, a reconnect caused by the input', () => {
    expect(forgeViolations([rec()], () => 1)).toEqual(['a forged forged_prompt line for session bbbbbbbb became a prompt']);
    expect(forgeViolations([rec({ answer: '' })], () => 0)).toEqual(['a forged forged_prompt line was answered "", not refused']);
    expect(forgeViolations([rec({ after: { pid: 10, connectedAt: 2, disruptions: 0 } })], () => 0)).toEqual([
      'a forged forged_prompt line cut the node off (reconnected)',
    ]);
  });

  it('does not judge the answer or the connection when another fault restarted or cut the agent meanwhile', () => {
    expect(forgeViolations([rec({ answer: '', after: { pid: 10, connectedAt: 2, disruptions: 1 } })], () => 0)).toEqual([]);
    expect(forgeViolations([rec({ answer: null })], () => 0)).toEqual([]);
  });
});
