import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Executor, startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';
import { assertInvariants, nativeJournal } from './invariants.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
  await sys.startAgent();
});
afterAll(async () => {
  await sys?.dispose();
});

/** Journal records, parsed (both CLIs write one JSON object a line). */
function journalRecords(nativeId: string): Record<string, unknown>[] {
  const file = nativeJournal(sys, nativeId);
  if (!file) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * Stop with a follow-up typed during a running turn. What each CLI does with it (executors README):
 * - Claude queues it as a turn of its own; the Esc ends the main turn and Claude then runs the
 *   follow-up (the model receives it after the interrupt marker; after an Esc before the first
 *   response byte, merged with the main's text) and journals its answer. A follow-up that is itself
 *   still running when the stop's drain ends is interrupted by the repeated Esc.
 * - Codex steers it into the running turn (same turn id, the model request is re-sent with it);
 *   the Esc aborts that one turn (`turn_aborted`), so the model's answer to it is cut too.
 * Each stored outcome must be what that evidence shows, and a final the CLI produced is stored and
 * sent exactly once.
 */
const CASES: { executor: Executor; main: string; follow: string; runsAfter: boolean }[] = [
  { executor: 'claude', main: 'STALL main claude one', follow: 'follow claude two', runsAfter: true },
  { executor: 'claude', main: 'HANG main claude one', follow: 'follow claude two', runsAfter: true },
  { executor: 'claude', main: 'STALL main claude one', follow: 'STALL follow claude two', runsAfter: false },
  // Codex folds the follow-up into the held turn, so it must be held too for the Esc to meet it.
  { executor: 'codex', main: 'STALL main codex one', follow: 'STALL follow codex two', runsAfter: false },
];

describe.each(CASES)('$executor: $main, then $follow', ({ executor, main, follow, runsAfter }) => {
  it("Stop with a follow-up: each stored outcome follows the CLI's own evidence", async () => {
    const s = await sys.createSession(executor, sys.folder(`stop-follow-${executor}-${CASES.findIndex((c) => c.main === main && c.follow === follow)}`));
    await sys.send(s.id, main);
    await sys.mocks[executor].waitForRequest((r) => r.kind === 'turn' && (r.userText ?? '').endsWith(main), 30_000);
    await sys.waitState(s.id, 'Running');
    const native = (await sys.session(s.id)).nativeSessionId!;
    await sys.send(s.id, follow);
    // Typed: Claude journals it as queued (`queue-operation`), Codex as a prompt of the running turn.
    await waitUntil('the follow-up in the journal', async () => journalRecords(native).some((r) => JSON.stringify(r).includes(follow)), 30_000);
    if (executor === 'codex') await sys.mocks.codex.waitForRequest((r) => r.kind === 'turn' && (r.userText ?? '').endsWith(follow), 30_000);

    await sys.stop(s.id);
    const msgs = await sys.waitMessages(
      s.id,
      (st) => st.length === 2 && st.every((x) => x === 'completed' || x === 'terminal_failed' || x === 'unknown'),
      90_000,
    );
    await sys.waitState(s.id, 'Ready', 30_000);

    // The model's request log: did the CLI go on to run the follow-up, and did its answer get through?
    const toModel = sys.turns(executor, native).filter((r) => (r.userText ?? '').trimEnd().endsWith(follow));
    const answered = toModel.some((r) => !r.clientClosed);
    const records = journalRecords(native);
    const [m1, m2] = msgs;
    if (executor === 'claude') {
      // Claude ran the queued follow-up after the interrupt: it reached the model once.
      expect(toModel).toHaveLength(1);
      expect(answered).toBe(runsAfter);
      const marker = records.some((r) => r.type === 'user' && JSON.stringify(r.message).includes('[Request interrupted by user]'));
      // After an Esc before the first byte Claude (1 run in 9) sent the main's text merged with the
      // follow-up and journaled no marker: the main then has no terminal record of its own.
      if (marker || !main.startsWith('HANG')) expect(m1!.status).toBe('terminal_failed');
      else expect(['terminal_failed', 'unknown'], `main without a marker: ${m1!.status}`).toContain(m1!.status);
    } else {
      // Codex aborted the one turn both prompts belong to; no answer reached it.
      expect(m1!.status).toBe('terminal_failed');
      expect(answered).toBe(false);
      expect(records.some((r) => (r.payload as { type?: string } | undefined)?.type === 'turn_aborted')).toBe(true);
    }
    if (answered) {
      const answer = records.find((r) => r.type === 'assistant' && JSON.stringify(r).includes(follow) && JSON.stringify(r).includes('MOCK-REPLY'));
      expect(answer, "the follow-up's answer in the journal").toBeDefined();
      expect(m2!.status).toBe('completed');
      expect(m2!.finalText).toBe((answer!.message as { content: { text: string }[] }).content[0]!.text);
    } else {
      expect(m2!.status).toBe('terminal_failed');
      expect(m2!.finalText).toBeNull();
    }
    // Exactly as many final rows as finals the CLI produced.
    await sys.engine.settle();
    const finals = (await sys.outbox(s.id)).filter((o) => (o.payload as { kind?: string }).kind === 'final');
    expect(finals.map((o) => (o.payload as { messageId?: string }).messageId)).toEqual(answered ? [m2!.id] : []);
    // The stop covered the follow-up: whatever the CLI went on to run started while still Stopping,
    // never as new work after a Ready the stop had declared too early.
    const ev = await sys.evidence(s.id);
    const sinceStop = ev.slice(ev.findIndex((e) => e.event === 'stop_requested'));
    const started = sinceStop.filter((e) => e.event === 'turn_started').map((e) => e.fromState);
    expect(
      started.every((from) => from === 'Stopping'),
      started.join(','),
    ).toBe(true);
    if (executor === 'claude') expect(started).toHaveLength(1);
    // The queue is open again: the next request runs in the same native session.
    const next = `after stop ${executor} three ${CASES.findIndex((c) => c.main === main && c.follow === follow)}`;
    await sys.send(s.id, next);
    await sys.waitMessages(s.id, (st) => st.length === 3 && st[2] === 'completed');
    await assertInvariants(sys, [s.id]);
  }, 240_000);
});
