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
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * Stop with a follow-up typed during a running turn. The main answer is held by the mock (STALL)
 * until the client leaves. What each CLI does with the follow-up (executors README):
 * - Claude queues it as a turn of its own; the Esc ends the main turn and Claude then runs the
 *   follow-up (the model receives it after the interrupt marker) and journals its answer.
 * - Codex steers it into the running turn (same turn id, the model request is re-sent with it);
 *   the Esc aborts that one turn (`turn_aborted`), so the model's answer to it is cut too.
 * The stored outcome of every message must be what that evidence shows, and a final the CLI
 * produced is stored and sent exactly once.
 */
describe.each(['claude', 'codex'] as Executor[])('%s', (executor) => {
  it('Stop with a follow-up: each stored outcome follows the CLI\'s own evidence', async () => {
    const s = await sys.createSession(executor, sys.folder(`stop-follow-${executor}`));
    const main = `STALL main ${executor} one`;
    // Codex folds the follow-up into the held turn, so it must be held too for the Esc to meet it.
    const follow = executor === 'codex' ? `STALL follow ${executor} two` : `follow ${executor} two`;
    await sys.send(s.id, main);
    await sys.mocks[executor].waitForRequest((r) => r.kind === 'turn' && (r.userText ?? '').endsWith(main), 30_000);
    await sys.waitState(s.id, 'Running');
    const native = (await sys.session(s.id)).nativeSessionId!;
    await sys.send(s.id, follow);
    // Typed: Claude journals it as queued (`queue-operation`), Codex as a prompt of the running turn.
    await waitUntil('the follow-up in the journal', async () => journalRecords(native).some((r) => JSON.stringify(r).includes(follow)), 30_000);
    if (executor === 'codex') await sys.mocks.codex.waitForRequest((r) => r.kind === 'turn' && (r.userText ?? '').endsWith(follow), 30_000);

    await sys.stop(s.id);
    const msgs = await sys.waitMessages(s.id, (st) => st.length === 2 && st.every((x) => x === 'completed' || x === 'terminal_failed' || x === 'unknown'), 60_000);
    await sys.waitState(s.id, 'Ready', 30_000);

    // The model's request log: did the CLI go on to run the follow-up, and did its answer get through?
    const toModel = sys.turns(executor, native).filter((r) => (r.userText ?? '').trimEnd().endsWith(follow));
    const answered = toModel.some((r) => !r.clientClosed);
    const records = journalRecords(native);
    const [m1, m2] = msgs;
    expect(m1!.status).toBe('terminal_failed');
    if (executor === 'claude') {
      // Observed: Claude runs the queued follow-up after the interrupt; its answer is in the journal.
      expect(answered).toBe(true);
      expect(toModel[0]!.userText).toContain('[Request interrupted by user]');
      const answer = records.find((r) => r.type === 'assistant' && JSON.stringify(r).includes(`you said \\"[Request interrupted by user]`));
      expect(answer, 'the follow-up\'s answer in the journal').toBeDefined();
      expect(m2!.status).toBe('completed');
      expect(m2!.finalText).toBe((((answer!.message as { content: { text: string }[] }).content)[0]!).text);
    } else {
      // Observed: Codex aborts the one turn both prompts belong to; no answer reached it.
      expect(answered).toBe(false);
      expect(records.some((r) => (r.payload as { type?: string } | undefined)?.type === 'turn_aborted')).toBe(true);
      expect(m2!.status).toBe('terminal_failed');
      expect(m2!.finalText).toBeNull();
    }
    // Exactly as many final rows as finals the CLI produced: one for Claude's follow-up, none for Codex.
    await sys.engine.settle();
    const finals = (await sys.outbox(s.id)).filter((o) => (o.payload as { kind?: string }).kind === 'final');
    expect(finals.map((o) => (o.payload as { messageId?: string }).messageId)).toEqual(answered ? [m2!.id] : []);
    // The queue is open again: the next request runs in the same native session.
    await sys.send(s.id, `after stop ${executor} three`);
    await sys.waitMessages(s.id, (st) => st.length === 3 && st[2] === 'completed');
    await assertInvariants(sys, [s.id]);
  }, 180_000);
});
