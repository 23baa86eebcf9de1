import { describe, expect, it } from 'vitest';
import { REFUSAL_WINDOW_MS, type Refusal, RefusalLog } from './refusal-log.ts';

const S1 = '1a2b3c4d-0000-4000-8000-000000000001';
const S2 = '5e6f7a8b-0000-4000-8000-000000000002';
const N = '9c9c9c9c-0000-4000-8000-00000000000a';

function setup() {
  let t = Date.parse('2026-12-06T22:00:00Z');
  const lines: { fields: Record<string, unknown>; msg: string }[] = [];
  const log = new RefusalLog({
    log: { info: ((fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg })) as never },
    clock: { now: () => new Date(t) },
  });
  return { log, lines, advance: (ms: number) => (t += ms) };
}
const stale = (seq: number, sessionId = S1): Refusal => ({ sessionId, nodeId: N, type: 'turn_started', seq, code: 'STALE_GENERATION' });

describe('RefusalLog', () => {
  it('128 stale reports of one session in a burst: one readable line at once, one summary with the count after the window', () => {
    const { log, lines, advance } = setup();
    for (let i = 0; i < 128; i++) {
      log.note(stale(1000 + i));
      advance(5);
    }
    expect(lines.map((l) => l.msg)).toEqual([
      'engine.event_refused: set aside one turn_started report from session 1a2b3c4d (STALE_GENERATION, outdated: from an earlier run of the CLI)',
    ]);
    expect(lines[0]?.fields).toEqual({ sessionId: S1, nodeId: N, seq: 1000, type: 'turn_started', code: 'STALE_GENERATION' });
    log.flush();
    expect(lines).toHaveLength(1); // the window is not over yet
    advance(REFUSAL_WINDOW_MS);
    log.flush();
    expect(lines.map((l) => l.msg)).toEqual([
      lines[0]?.msg,
      'engine.event_refused: set aside 127 more STALE_GENERATION reports from session 1a2b3c4d in the last 11 s',
    ]);
    expect(lines[1]?.fields).toEqual({ sessionId: S1, nodeId: N, code: 'STALE_GENERATION', count: 127 });
    log.flush();
    expect(lines).toHaveLength(2);
  });

  it('counts per session and per code', () => {
    const { log, lines, advance } = setup();
    log.note(stale(1));
    log.note(stale(2, S2));
    log.note({ ...stale(3), code: 'NO_MATCHING_REQUEST', type: 'permission_resolved' });
    log.note(stale(4));
    log.note(stale(5, S2));
    log.note(stale(6, S2));
    expect(lines).toHaveLength(3);
    expect(lines[2]?.msg).toContain('(NO_MATCHING_REQUEST, no matching request)');
    advance(REFUSAL_WINDOW_MS);
    log.flush();
    expect(lines.slice(3).map((l) => l.fields.count)).toEqual([1, 2]);
    expect(lines[3]?.msg).toBe('engine.event_refused: set aside 1 more STALE_GENERATION report from session 1a2b3c4d in the last 10 s');
  });

  it('a single refusal logs no summary; a refusal after the window logs the summary and starts a new window', () => {
    const { log, lines, advance } = setup();
    log.note(stale(1));
    advance(REFUSAL_WINDOW_MS);
    log.flush();
    expect(lines).toHaveLength(1);
    log.note(stale(2));
    log.note(stale(3));
    advance(REFUSAL_WINDOW_MS + 2000);
    // No flush ran: the next refusal closes the old window first.
    log.note(stale(4));
    expect(lines.map((l) => l.msg.replace(/session \w+/, 'session …'))).toEqual([
      expect.stringContaining('set aside one turn_started report'),
      expect.stringContaining('set aside one turn_started report'),
      'engine.event_refused: set aside 1 more STALE_GENERATION report from session … in the last 12 s',
      expect.stringContaining('set aside one turn_started report'),
    ]);
    expect(lines[3]?.fields.seq).toBe(4);
  });

  it('flush({ all: true }) at shutdown reports open windows at once', () => {
    const { log, lines } = setup();
    log.note(stale(1));
    log.note(stale(2));
    log.note(stale(3));
    log.flush({ all: true });
    expect(lines.at(-1)?.msg).toBe('engine.event_refused: set aside 2 more STALE_GENERATION reports from session 1a2b3c4d in the last 1 s');
  });

  it('an unknown code reads as the code', () => {
    const { log, lines } = setup();
    log.note({ ...stale(1), code: 'SOMETHING_NEW' });
    expect(lines[0]?.msg).toBe('engine.event_refused: set aside one turn_started report from session 1a2b3c4d (SOMETHING_NEW)');
  });
});
