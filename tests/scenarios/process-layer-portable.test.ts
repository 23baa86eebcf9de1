import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '../../packages/testkit/src/system.ts';
import { faultScenarios } from './fault-scenarios.ts';
import { lifecycleScenarios } from './lifecycle-scenarios.ts';

// The real-CLI scenarios of lifecycle.test.ts (create, message, stop, close, resume, failed resume)
// and faults.test.ts (CLI crash → exact resume, agent outage → re-attach to the same CLI) again,
// with the agent forced onto the portable process layer (`ps` output, as on macOS), so the code a
// Mac runs is verified on every CI run. The agent-level session tests run over both layers in
// apps/node-agent/src/executors/*-session.test.ts.
let sys: System;
beforeAll(async () => {
  sys = await startSystem({ agentEnv: { BRIA_AGENT_PROCESS_LAYER: 'portable' } });
  await sys.startAgent();
});
afterAll(async () => {
  await sys?.dispose();
});

describe('the agent under test', () => {
  it('runs the portable process layer: says so, and records CLI start times as ps prints them', async () => {
    expect(sys.agentLog()).toMatch(/"layer":"portable".*"msg":"agent.process_layer"|"msg":"agent.process_layer".*"layer":"portable"/);
    const s = await sys.createSession('claude', sys.folder('portable-identity'));
    await sys.waitState(s.id, 'Ready');
    // `lstart` (C locale, UTC), not /proc's clock ticks.
    expect((await sys.identity(s.id)).cliStartTime).toMatch(/^[A-Z][a-z]{2} [A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}:\d{2} \d{4}$/);
    await sys.close(s.id);
    await sys.waitState(s.id, 'Archived');
  });

  it('switching the layer between agent runs re-attaches the same running CLI, both ways (never a second CLI, never a false exit)', async () => {
    const s = await sys.createSession('codex', sys.folder('layer-switch'));
    await sys.send(s.id, 'before the switch');
    await sys.waitMessages(s.id, (st) => st[0] === 'completed');
    const before = await sys.identity(s.id);
    let n = 1;
    for (const layer of ['proc', 'portable']) {
      await sys.killAgent();
      await sys.waitState(s.id, 'AwaitingRecovery', 20_000);
      await sys.startAgent({ env: { BRIA_AGENT_PROCESS_LAYER: layer } });
      await sys.waitState(s.id, 'Ready', 30_000);
      await sys.send(s.id, `after switching to ${layer}`);
      n += 1;
      await sys.waitMessages(s.id, (st) => st.length === n && st[n - 1] === 'completed', 60_000);
      const after = await sys.identity(s.id);
      expect(after.cliPid).toBe(before.cliPid);
      expect(after.paneId).toBe(before.paneId);
      expect((await sys.evidence(s.id)).filter((e) => e.event === 'reattached').length).toBe(n - 1);
      expect((await sys.evidence(s.id)).some((e) => ['process_exited_verified', 'reattach_refused'].includes(e.event))).toBe(false);
    }
    expect(sys.agentLog()).toMatch(/"layer":"proc"/);
    await sys.close(s.id);
    await sys.waitState(s.id, 'Archived');
  });
});

lifecycleScenarios(() => sys);
faultScenarios(() => sys);
