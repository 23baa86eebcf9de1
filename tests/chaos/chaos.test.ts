import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../../packages/testkit/src/system.ts';
import { ChaosCluster } from './chaos-cluster.ts';
import { runSeed } from './chaos-run.ts';
import { startChaosSystem } from './chaos-system.ts';

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
  it.each([3, 5])(
    'seed %i keeps every invariant under injected faults',
    async (seed) => {
      // The settle bound waits for the system at rest (an event, polled); 45 s was passed by seed 5
      // twice on a machine at load average 20 (CI beside three other suites). The product has no
      // bound on a turn's length, so this is only an outer limit.
      const r = await runSeed(cluster, { seed, activeMs: 15_000, settleMs: 120_000 });
      const injected = Object.values(r.faults).reduce((a, b) => a + b, 0);
      // The run really exercised the system: sessions, messages and faults happened.
      expect(r.sessions).toBeGreaterThan(0);
      expect(r.messages).toBeGreaterThan(0);
      expect(injected).toBeGreaterThan(0);
      expect(r.violations, `replay: npm run chaos -- --seed ${seed} --active-seconds 15`).toEqual([]);
      expect(r.harness).toEqual([]);
    },
    240_000,
  );
});

describe('chaos harness', () => {
  // Batch 290000 stopped on "the hub did not start": while a killed hub was down, its port was
  // most likely taken by another process, and every restart on that port failed.
  it('a hub restarted while another process holds its port comes back on a free one, and the agent follows through the proxy', async () => {
    const sys = await startChaosSystem(cluster, { slowChunks: 10, slowChunkMs: 100 });
    const squatter = createServer();
    try {
      await sys.startHub();
      await sys.startAgent();
      await sys.waitOnline();
      const before = sys.hubPort;
      await sys.killHub();
      await new Promise<void>((resolve, reject) => {
        squatter.once('error', reject);
        squatter.listen(before, '127.0.0.1', () => resolve());
      });
      await sys.startHub();
      expect(sys.hubPort).not.toBe(before);
      // The agent, still pointed at the proxy, is connected to the new hub (its own count).
      await waitUntil(
        'the agent on the new hub',
        async () => {
          const health = await fetch(`http://127.0.0.1:${sys.hubPort}/health`)
            .then((r) => r.json() as Promise<{ agents: number }>)
            .catch(() => null);
          return health?.agents === 1;
        },
        60_000,
        200,
      );
      await sys.waitOnline();
    } finally {
      squatter.close();
      await sys.dispose();
    }
  }, 150_000);
});
