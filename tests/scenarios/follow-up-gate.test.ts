// A message sent while a Claude turn runs a tool is not typed into that turn: Claude draws a
// permission dialog only after its PreToolUse hook returns, and a paste + Enter on a dialog answers it
// with "Yes" and loses the text (docs/cli-facts.md; chaos seed 20005 saw a tool run with nobody's allow
// that way). Bria's PreToolUse hook tells the agent a tool call began; until the journal shows its
// result, a follow-up is refused untyped and waits in the queue, then goes as the next request.
// Real Claude Code in tmux under the real agent, hub, engine and Postgres.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem({ executors: ['claude'] });
  await sys.startAgent();
}, 120_000);
afterAll(async () => {
  await sys?.dispose();
});

describe('follow-ups and open tool calls (Claude, default permission mode)', () => {
  it('a follow-up sent while a tool runs waits untyped until the tool ended, then reaches the model once, after the turn', async () => {
    const folder = sys.folder('gate-claude');
    const id = (await sys.createSession('claude', folder)).id;
    await sys.waitState(id, 'Ready', 90_000);
    await sys.send(id, 'please TOOLWAIT-g1 now');
    // Claude runs this read-only loop without asking; the journal shows the call running.
    await waitUntil(
      'the waiting command runs',
      async () => sys.db.sessionActivity.findFirst({ where: { sessionId: id, subject: { contains: 'go-g1' }, status: 'running' } }),
      90_000,
    );

    // The tool runs now (it waits for go-g1). A follow-up is handed over and refused untyped.
    const text = 'follow-up while the tool runs g1';
    await sys.send(id, text);
    const m = await sys.db.message.findFirstOrThrow({ where: { sessionId: id, text } });
    const refusal = await waitUntil(
      'the agent refused to type the follow-up',
      async () => {
        const ev = await sys.db.sessionEvidence.findFirst({ where: { sessionId: id, event: 'delivery_not_typed' }, orderBy: { id: 'desc' } });
        return ev && JSON.stringify(ev.evidence).includes(m.id) ? ev : null;
      },
      60_000,
    );
    expect(JSON.stringify(refusal.evidence)).toMatch(/tool call is in progress/);
    expect((await sys.db.message.findUniqueOrThrow({ where: { id: m.id } })).status).toBe('pending');
    expect(sys.allTurns('claude').filter((q) => (q.userText ?? '').includes(text))).toEqual([]);

    // The tool ends; the turn completes; the follow-up is typed only now, once. It goes as the next
    // request, or — when its wait after the refusal ends between the tool's end and the turn's (a
    // busy machine) — as a follow-up of the same turn, which the gate allows once no tool call is open.
    const released = new Date();
    writeFileSync(join(folder, 'go-g1'), '');
    const all = await sys.waitMessages(id, (st) => st.length === 2 && st.every((s) => s === 'completed'), 120_000);
    expect(all[0]!.finalText).toMatch(/^TOOL-DONE-\d+: is_error=false .*released-g1/s);
    expect(all[1]!.acceptedAt!.getTime()).toBeGreaterThanOrEqual(released.getTime());
    expect([null, all[0]!.id]).toContain(all[1]!.mainMessageId);
    expect(sys.allTurns('claude').filter((q) => (q.userText ?? '').endsWith(text))).toHaveLength(1);
    expect(existsSync(join(folder, 'go-g1'))).toBe(true);
  }, 300_000);
});
