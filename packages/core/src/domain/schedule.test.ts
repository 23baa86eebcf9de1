import { describe, expect, it } from 'vitest';
import { decideScheduleRun, type ScheduleRunDecision, type ScheduleRunFacts } from './schedule.ts';

describe('decideScheduleRun: every combination', () => {
  const expected = (f: ScheduleRunFacts): ScheduleRunDecision => {
    if (f.session === 'gone') return { do: 'end', reason: 'gone' };
    if (f.session === 'closed')
      return f.resumeIfClosed ? { do: 'resume_then_send' } : f.kind === 'once' ? { do: 'end', reason: 'closed' } : { do: 'skip', reason: 'closed' };
    if (f.kind === 'once') return { do: 'send' };
    if (!f.busy) return { do: 'send' };
    return f.ifBusy === 'skip' ? { do: 'skip', reason: 'busy' } : { do: 'wait' };
  };
  const rows: [ScheduleRunFacts, ScheduleRunDecision][] = [];
  for (const kind of ['once', 'recurring'] as const)
    for (const ifBusy of ['wait', 'skip'] as const)
      for (const resumeIfClosed of [false, true])
        for (const session of ['open', 'closed', 'gone'] as const)
          for (const busy of [false, true]) {
            const f = { kind, ifBusy, resumeIfClosed, session, busy };
            rows.push([f, expected(f)]);
          }
  it.each(rows)('%o → %o', (f, d) => {
    expect(decideScheduleRun(f)).toEqual(d);
  });
  it('covers 48 combinations', () => expect(rows).toHaveLength(48));
  // Spelled out, the rows the issue names.
  it('a recurring message skips (or waits) while a turn runs; a once message queues behind it', () => {
    expect(decideScheduleRun({ kind: 'recurring', ifBusy: 'skip', resumeIfClosed: false, session: 'open', busy: true })).toEqual({
      do: 'skip',
      reason: 'busy',
    });
    expect(decideScheduleRun({ kind: 'recurring', ifBusy: 'wait', resumeIfClosed: false, session: 'open', busy: true })).toEqual({ do: 'wait' });
    expect(decideScheduleRun({ kind: 'once', ifBusy: 'skip', resumeIfClosed: false, session: 'open', busy: true })).toEqual({ do: 'send' });
    expect(decideScheduleRun({ kind: 'once', ifBusy: 'wait', resumeIfClosed: true, session: 'closed', busy: false })).toEqual({ do: 'resume_then_send' });
  });
});
