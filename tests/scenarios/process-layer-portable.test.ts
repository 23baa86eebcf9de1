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
});

lifecycleScenarios(() => sys);
faultScenarios(() => sys);
