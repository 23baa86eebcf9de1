// Usage limits and tokens per turn (issue 33), with the real CLIs in tmux under the real agent, hub,
// engine and Postgres, against the mocks' LIMIT429-<s>: each provider's usage-limit refusal, the
// limit resetting s seconds later (docs/cli-facts.md, "Usage limits").
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSessionView } from '../../packages/core/src/services/sessions/session-view.ts';
import { startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
  await sys.startAgent();
}, 120_000);
afterAll(async () => {
  await sys?.dispose();
});

describe('usage limits from the journals', () => {
  it('codex: the limit the rollout records holds the next message until its reset, then it is delivered; tokens are kept per turn', async () => {
    const s = await sys.createSession('codex', sys.folder('usage-limit-codex'));
    await sys.send(s.id, 'hello before the limit');
    await sys.waitMessages(s.id, (st) => st[0] === 'completed', 120_000);
    const first = await sys.db.turnUsage.findFirstOrThrow({ where: { sessionId: s.id } });
    expect(first).toMatchObject({ executor: 'codex', model: 'mock-model', nodeId: sys.nodeId });
    expect(first.inputTokens + first.cacheReadTokens).toBeGreaterThan(0);

    await sys.send(s.id, 'now LIMIT429-45 please');
    const limit = await waitUntil(
      'the limit state',
      async () => sys.db.usageLimit.findFirst({ where: { nodeId: sys.nodeId, executor: 'codex', reached: true } }),
      90_000,
    );
    expect(limit.resetsAt).not.toBeNull();
    const resetsAt = limit.resetsAt!.getTime();
    expect(resetsAt - Date.now()).toBeGreaterThan(15_000);
    await sys.waitMessages(s.id, (st) => st.length === 2 && st[1] !== 'pending' && st[1] !== 'leased' && st[1] !== 'accepted', 90_000);

    const held = (await sys.send(s.id, 'after the limit resets')).message.id;
    await waitUntil(
      'the hold shown',
      async () => {
        const v = await getSessionView({ db: sys.db }, { sessionId: s.id });
        return v.queueWait?.reason === 'usage_limit' ? v : null;
      },
      30_000,
    );
    // Nothing is handed to the CLI before the reset.
    while (Date.now() < resetsAt - 2_000) {
      expect(await sys.db.agentCommand.count({ where: { sessionId: s.id, type: 'deliver', payload: { path: ['messageId'], equals: held } } })).toBe(0);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    // Codex 0.171 opened its "Approaching rate limits · Switch to <model>?" dialog with the error: the
    // agent pastes nothing while it is up (a pasted Enter would pick "Switch"), the message waits.
    const { paneId } = await sys.identity(s.id);
    const screen = () => execFileSync('tmux', ['-L', sys.tmuxSocket, 'capture-pane', '-p', '-t', paneId], { encoding: 'utf8' });
    expect(screen()).toContain('Approaching rate limits');
    await waitUntil(
      'a refused hand-over after the reset',
      async () => (await sys.db.sessionEvidence.count({ where: { sessionId: s.id, event: 'delivery_not_typed' } })) > 0 || null,
      60_000,
    );
    expect((await sys.db.message.findUniqueOrThrow({ where: { id: held } })).status).toBe('pending');
    // The user dismisses it (Esc, as from the live terminal or at the computer): the message goes.
    execFileSync('tmux', ['-L', sys.tmuxSocket, 'send-keys', '-t', paneId, 'Escape']);
    const done = await sys
      .waitMessages(s.id, (st) => st[2] === 'completed', 120_000)
      .catch(async (err: unknown) => {
        const dump = {
          now: new Date().toISOString(),
          resetsAt: new Date(resetsAt).toISOString(),
          session: (await sys.session(s.id)).state,
          messages: await sys.db.message.findMany({ where: { sessionId: s.id }, orderBy: { seq: 'asc' }, select: { status: true, outcomeDetail: true } }),
          screen: screen(),
        };
        console.error('USAGE-LIMIT DUMP', JSON.stringify(dump, null, 1));
        throw err;
      });
    expect(done[2]!.text).toBe('after the limit resets');
    const deliveries = await sys.db.agentCommand.findMany({ where: { sessionId: s.id, type: 'deliver', payload: { path: ['messageId'], equals: held } } });
    expect(Math.min(...deliveries.map((d) => d.createdAt.getTime()))).toBeGreaterThanOrEqual(resetsAt);
    // The model was not switched by a stray Enter: the last request still names the session's model.
    const native = (await sys.session(s.id)).nativeSessionId!;
    const last = sys.turns('codex', native).at(-1)!;
    expect(last.userText?.endsWith('after the limit resets')).toBe(true);
    expect(last.model).toBe('mock-model');
  }, 400_000);

  it('claude (API key): the rate-limit record is shown as a limit without a reset, which holds nothing', async () => {
    const s = await sys.createSession('claude', sys.folder('usage-limit-claude'));
    await sys.send(s.id, 'hello claude');
    await sys.waitMessages(s.id, (st) => st[0] === 'completed', 120_000);
    expect(await sys.db.turnUsage.findFirstOrThrow({ where: { sessionId: s.id } })).toMatchObject({ executor: 'claude', model: 'claude-opus-4-8' });
    await sys.send(s.id, 'now LIMIT429-600 please');
    const limit = await waitUntil(
      'the limit state',
      async () => sys.db.usageLimit.findFirst({ where: { nodeId: sys.nodeId, executor: 'claude', reached: true } }),
      90_000,
    );
    expect(limit.resetsAt).toBeNull();
    expect(limit.text).toContain('429');
    await sys.send(s.id, 'and then this one');
    const msgs = await sys.waitMessages(s.id, (st) => st[2] === 'completed', 120_000);
    expect(msgs[1]!.status).not.toBe('completed');
    // The model answered again: the limit is reported lifted.
    await waitUntil('the limit lifted', async () => sys.db.usageLimit.findFirst({ where: { nodeId: sys.nodeId, executor: 'claude', reached: false } }), 30_000);
  }, 400_000);
});
