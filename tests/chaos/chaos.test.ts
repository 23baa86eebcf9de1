import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChaosCluster } from './chaos-cluster.ts';
import { runSeed } from './chaos-run.ts';

// The short chaos run of `npm test`: two fixed seeds, ~15 s of user actions and faults each, then
// heal, settle and check every invariant. The long runs are `npm run chaos` (docs/reliability.md).
const cluster = new ChaosCluster();
beforeAll(async () => {
  await cluster.start();
});
afterAll(async () => {
  await cluster.stop();
});

describe('chaos (short run)', () => {
  it.each([3, 5])('seed %i keeps every invariant under injected faults', async (seed) => {
    const r = await runSeed(cluster, { seed, activeMs: 15_000, settleMs: 45_000 });
    const injected = Object.values(r.faults).reduce((a, b) => a + b, 0);
    // The run really exercised the system: sessions, messages and faults happened.
    expect(r.sessions).toBeGreaterThan(0);
    expect(r.messages).toBeGreaterThan(0);
    expect(injected).toBeGreaterThan(0);
    expect(r.violations, `replay: npm run chaos -- --seed ${seed} --active-seconds 15`).toEqual([]);
    expect(r.harness).toEqual([]);
  }, 150_000);
});
