import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Executor, startSystem, type System } from '../../packages/testkit/src/system.ts';
import { assertInvariants, reached } from './invariants.ts';

// A CLI dies in the middle of a turn; while the agent resumes it, the agent itself is SIGKILLed
// (test seam `BRIA_AGENT_TEST_CRASH`). Were the dead CLI's open turn forgotten with the record the
// resume rewrites, the message would stay `accepted` and the session Running for ever. So the open
// turn is written down before anything is launched and reported `unknown` (never typed again) once
// the session has a CLI again; a CLI the killed resume had already launched but not recorded is
// ended, so the session never runs two CLIs.
let sys: System;
beforeAll(async () => {
  sys = await startSystem();
});
afterAll(async () => {
  await sys?.dispose();
});

/** Live panes of this session's tmux sessions (`bria-<id8>-g<generation>`). */
function livePanes(sessionId: string): string[] {
  let out = '';
  try {
    out = execFileSync('tmux', ['-L', sys.tmuxSocket, 'list-panes', '-a', '-F', '#{session_name} #{pane_dead}'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {}
  return out.split('\n').filter((l) => l.startsWith(`bria-${sessionId.slice(0, 8)}-`) && l.endsWith(' 0'));
}

describe.each(['claude', 'codex'] as Executor[])('%s: agent SIGKILLed while resuming a CLI that died mid-turn', { timeout: 240_000 }, (executor) => {
  it.each(['resume:launching', 'resume:confirmed'])('at %s: the open turn ends unknown and is never re-sent, one CLI, the queue moves on', async (point) => {
    await sys.killAgent();
    await sys.startAgent({ env: { BRIA_AGENT_TEST_CRASH: point } });
    const s = await sys.createSession(executor, sys.folder(`resume-crash-${point.replace(':', '-')}-${executor}`));
    await sys.waitState(s.id, 'Ready');
    const first = `SLOW open when its CLI died ${point} ${executor}`;
    await sys.send(s.id, first);
    await sys.waitMessages(s.id, (st) => st[0] === 'accepted', 60_000);
    const died = sys.agentExited();
    await sys.killCli(s.id);
    // The agent sees the exit, the hub asks for the exact resume, the agent dies at `point`.
    expect(await died).toBe('SIGKILL');
    expect((await sys.messages(s.id))[0]!.status).toBe('accepted');
    await sys.startAgent();
    // Before anything else is sent (a later turn's outcome could otherwise close it as a follow-up).
    await sys
      .waitMessages(s.id, (st) => st[0] === 'unknown', 90_000)
      .catch(async (err: Error) => {
        const ev = (await sys.evidence(s.id)).map((e) => `${e.event}:${e.toState}`).join(' ');
        throw new Error(`${err.message}; the dead CLI's open turn was not reported; state ${(await sys.session(s.id)).state}; evidence ${ev}`);
      });
    const second = `sent after the resume crash ${point} ${executor}`;
    await sys.send(s.id, second);
    const msgs = await sys
      .waitMessages(s.id, (st) => st[1] === 'completed', 150_000)
      .catch(async (err: Error) => {
        const ev = (await sys.evidence(s.id)).map((e) => `${e.event}:${e.toState}`).join(' ');
        const st = (await sys.messages(s.id)).map((m) => `${m.status}:${m.outcomeDetail ?? ''}`).join(', ');
        throw new Error(`${err.message}; messages ${st}; state ${(await sys.session(s.id)).state}; evidence ${ev}`);
      });
    expect(msgs[0]!.status).toBe('unknown');
    expect((await sys.session(s.id)).state).toBe('Ready');
    const native = (await sys.session(s.id)).nativeSessionId!;
    expect(reached(sys, executor, native, first)).toBe(1);
    expect(reached(sys, executor, native, second)).toBe(1);
    // Exactly one CLI runs for the session: the one bound to it.
    const panes = livePanes(s.id);
    expect(panes, panes.join('; ')).toHaveLength(1);
    expect(panes[0]!.split(' ')[0]).toBe((await sys.identity(s.id)).tmuxSession);
    await assertInvariants(sys, [s.id]);
  });
});
