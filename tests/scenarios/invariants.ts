import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { Executor, System } from '../../packages/testkit/src/system.ts';

/** Requests whose latest user message ends with this text (Claude merges an interrupt marker in front). */
export function reached(sys: System, executor: Executor, nativeId: string, text: string): number {
  return sys.turns(executor, nativeId).filter((r) => (r.userText ?? '').trimEnd().endsWith(text)).length;
}

/**
 * Global invariants after a scenario: every message the CLI accepted reached the model exactly once
 * (the mock's log), nothing unknown or never-delivered was typed, and every native session the model
 * saw belongs to exactly one Bria session that kept its native id.
 */
export async function assertInvariants(sys: System, sessionIds: string[]): Promise<void> {
  const natives = new Map<string, string>();
  for (const id of sessionIds) {
    const s = await sys.session(id);
    expect(s.nativeSessionId, `session ${id} has a native id`).toBeTruthy();
    natives.set(s.nativeSessionId!, id);
    const rows = await sys.db.session.count({ where: { nodeId: s.nodeId, executor: s.executor, nativeSessionId: s.nativeSessionId } });
    expect(rows).toBe(1);
    for (const m of await sys.messages(id)) {
      const n = reached(sys, s.executor as Executor, s.nativeSessionId!, m.text);
      if (['accepted', 'completed', 'terminal_failed'].includes(m.status)) expect(n, `"${m.text}" (${m.status}) reached the model once`).toBe(1);
      else if (m.status === 'unknown') expect(n, `unknown "${m.text}" never re-sent`).toBeLessThanOrEqual(1);
      else expect(n, `"${m.text}" (${m.status}) never typed`).toBe(0);
    }
  }
  // No replacement session: every native id the models were asked about is one of these sessions'.
  for (const ex of ['claude', 'codex'] as const) {
    for (const r of sys.allTurns(ex))
      if (r.sessionId)
        expect(
          natives.has(r.sessionId) || (await sys.db.session.count({ where: { nativeSessionId: r.sessionId } })) === 1,
          `native ${r.sessionId} belongs to a Bria session`,
        ).toBe(true);
  }
}

/** The CLI's own journal file of a native session (Claude `<id>.jsonl`, Codex `rollout-…-<id>.jsonl`), or null. */
export function nativeJournal(sys: System, nativeId: string): string | null {
  const files = readdirSync(sys.home, { recursive: true }).map(String);
  const hit = files.find((f) => f.endsWith(`${nativeId}.jsonl`) && !f.includes('archive'));
  return hit ? path.join(sys.home, hit) : null;
}
