// Cancel and edit of a queued message before the hand-over (issue 33), with the real CLIs in tmux
// under the real agent, hub, engine and Postgres. A session that is still starting holds its queue
// (no `deliver` can exist yet), so the cancel and the edit are certain to win; the race itself is
// covered on a real database in packages/core/src/services/sessions/change-message.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelMessage, editMessage } from '../../packages/core/src/services/index.ts';
import { type Executor, startSystem, type System } from '../../packages/testkit/src/system.ts';
import { assertInvariants, reached } from './invariants.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
  await sys.startAgent();
}, 120_000);
afterAll(async () => {
  await sys?.dispose();
});

describe.each(['claude', 'codex'] as Executor[])('%s', (executor) => {
  it('a cancelled message never reaches the model, the next one goes next, an edited one arrives exactly as edited', async () => {
    const s = await sys.createSession(executor, sys.folder(`cancel-edit-${executor}`));
    const first = `first ${executor} alpha`;
    const cancelled = `cancel me ${executor} beta`;
    const draft = `draft ${executor} gamma`;
    const edited = `edited ${executor} delta, exactly this`;
    for (const t of [first, cancelled, draft]) await sys.send(s.id, t);
    const rows = await sys.db.message.findMany({ where: { sessionId: s.id }, orderBy: { seq: 'asc' }, select: { id: true } });
    const [, toCancel, toEdit] = rows.map((r) => r.id);
    await cancelMessage({ db: sys.db }, { messageId: toCancel! });
    await editMessage({ db: sys.db }, { messageId: toEdit!, text: edited });
    expect((await sys.session(s.id)).state).toBe('Starting');

    const msgs = await sys.waitMessages(s.id, (st) => st.length === 3 && st[0] === 'completed' && st[1] === 'cancelled' && st[2] === 'completed', 120_000);
    expect(msgs.map((m) => m.text)).toEqual([first, cancelled, edited]);
    const native = (await sys.session(s.id)).nativeSessionId!;
    // The model's request log: the first text, then the edited one exactly; never the cancelled one
    // nor the draft.
    const seen = sys
      .turns(executor, native)
      .map((r) => (r.userText ?? '').trimEnd())
      .filter((t) => [first, cancelled, draft, edited].some((x) => t.endsWith(x)));
    expect(seen).toHaveLength(2);
    expect(seen[0]!.endsWith(first)).toBe(true);
    expect(seen[1]!.endsWith(edited)).toBe(true);
    expect(reached(sys, executor, native, cancelled)).toBe(0);
    expect(reached(sys, executor, native, draft)).toBe(0);
    expect(await sys.db.agentCommand.count({ where: { sessionId: s.id, type: 'deliver', payload: { path: ['messageId'], equals: toCancel! } } })).toBe(0);
    expect((await sys.db.message.findUniqueOrThrow({ where: { id: toEdit! } })).originalText).toBe(draft);
    await assertInvariants(sys, [s.id]);
  }, 300_000);
});
