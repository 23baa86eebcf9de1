import { beforeAll, describe, expect, it } from 'vitest';
import { type Executor, isRecordedProcess, procAlive, type System, waitUntil } from '../../packages/testkit/src/system.ts';
import { assertInvariants, reached } from './invariants.ts';

/** A CLI crash (exact resume) and an agent outage (re-attach to the same CLI) per executor, on `system()`'s agent. */
export function faultScenarios(system: () => System): void {
  let sys!: System;
  beforeAll(() => {
    sys = system();
  });

  const states = async (id: string) => (await sys.evidence(id)).map((e) => e.toState);

  describe.each(['claude', 'codex'] as Executor[])('%s', (executor) => {
    it('Process crash: SIGKILL of the CLI → exact resume by id on the same node; the accepted queue is delivered in order', async () => {
      const s = await sys.createSession(executor, sys.folder(`crash-${executor}`));
      await sys.send(s.id, `before crash ${executor} one`);
      await sys.waitMessages(s.id, (st) => st[0] === 'completed');
      const native = (await sys.session(s.id)).nativeSessionId!;
      await sys.send(s.id, `SLOW crash ${executor} two`);
      await sys.mocks[executor].waitForRequest((r) => r.kind === 'turn' && (r.userText ?? '').endsWith(`SLOW crash ${executor} two`), 20_000);
      await sys.waitMessages(s.id, (st) => st[1] === 'accepted');
      const old = await sys.identity(s.id);
      await sys.killCli(s.id);
      // Sent once Bria knows the CLI is gone: a message sent in the same instant may be handed to the
      // dying CLI as a follow-up and then ends `unknown` (honest, but not this scenario's point).
      await waitUntil('AwaitingRecovery recorded', async () => (await states(s.id)).includes('AwaitingRecovery'), 20_000);
      await sys.send(s.id, `after crash ${executor} three`);
      await sys.send(s.id, `after crash ${executor} four`);
      const msgs = await sys.waitMessages(s.id, (st) => st.length === 4 && st[2] === 'completed' && st[3] === 'completed', 60_000);
      const row = await sys.session(s.id);
      expect(row.nativeSessionId).toBe(native);
      expect(row.executor).toBe(executor);
      expect(row.nodeId).toBe(sys.nodeId);
      const now = await sys.identity(s.id);
      expect(now.nativeId).toBe(native);
      expect(now.cliPid).not.toBe(old.cliPid);
      expect(isRecordedProcess(old.cliPid, old.cliStartTime)).toBe(false);
      expect(isRecordedProcess(now.cliPid, now.cliStartTime)).toBe(true);
      expect(procAlive(now.cliPid)).toBe(true);
      // The turn the dead process held is not typed again; its outcome is unknown (no evidence), never a guess.
      expect(msgs[1]!.status).toBe('unknown');
      expect(reached(sys, executor, native, `SLOW crash ${executor} two`)).toBe(1);
      const order = sys
        .turns(executor, native)
        .map((r) => r.userText ?? '')
        .filter((t) => /after crash/.test(t));
      expect(order).toHaveLength(2);
      expect(order[0]).toMatch(new RegExp(`after crash ${executor} three$`));
      expect(order[1]).toMatch(new RegExp(`after crash ${executor} four$`));
      // The resumed process continued the same conversation.
      const req = sys.turns(executor, native).find((r) => (r.userText ?? '').endsWith(`after crash ${executor} three`))!;
      expect(JSON.stringify(req.body)).toContain(`before crash ${executor} one`);
      expect(await sys.db.session.count({ where: { nodeId: sys.nodeId, executor, launchSource: { not: 'discovered' } } })).toBeGreaterThanOrEqual(1);
      await assertInvariants(sys, [s.id]);
    });

    it('Node unreachable: agent SIGKILLed → AwaitingRecovery; back → the same CLI continues, nothing retyped', async () => {
      const s = await sys.createSession(executor, sys.folder(`outage-${executor}`));
      await sys.send(s.id, `before outage ${executor} one`);
      await sys.waitMessages(s.id, (st) => st[0] === 'completed');
      const native = (await sys.session(s.id)).nativeSessionId!;
      const before = await sys.identity(s.id);
      await sys.send(s.id, `SLOW outage ${executor} two`);
      await sys.mocks[executor].waitForRequest((r) => r.kind === 'turn' && (r.userText ?? '').endsWith(`SLOW outage ${executor} two`), 20_000);
      await sys.waitMessages(s.id, (st) => st[1] === 'accepted');
      await sys.killAgent();
      await sys.waitState(s.id, 'AwaitingRecovery', 20_000);
      await sys.send(s.id, `during outage ${executor} three`);
      await new Promise((r) => setTimeout(r, 2500));
      // Still waiting, not archived; the CLI lives on in tmux without its observer.
      expect((await sys.session(s.id)).state).toBe('AwaitingRecovery');
      expect(procAlive(before.cliPid)).toBe(true);
      expect((await sys.messages(s.id)).map((m) => m.status)).toEqual(['completed', 'accepted', 'pending']);
      expect(reached(sys, executor, native, `during outage ${executor} three`)).toBe(0);
      await sys.startAgent();
      const msgs = await sys.waitMessages(s.id, (st) => st.length === 3 && st.every((x) => x === 'completed'), 60_000);
      expect(msgs[1]!.finalText).toMatch(/MOCK|\w/);
      const after = await sys.identity(s.id);
      expect(after.cliPid).toBe(before.cliPid);
      expect(after.cliStartTime).toBe(before.cliStartTime);
      expect(isRecordedProcess(after.cliPid, after.cliStartTime)).toBe(true);
      expect(after.paneId).toBe(before.paneId);
      expect((await sys.session(s.id)).nodeId).toBe(sys.nodeId);
      for (const t of [`before outage ${executor} one`, `SLOW outage ${executor} two`, `during outage ${executor} three`])
        expect(reached(sys, executor, native, t)).toBe(1);
      await assertInvariants(sys, [s.id]);
    });
  });
}
