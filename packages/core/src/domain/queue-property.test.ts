import { describe, expect, it } from 'vitest';
import { prng } from './testing/prng.ts';
import { ACTIONS, QueueSim, RARE_ACTIONS } from './testing/queue-sim.ts';

const RUNS = 3000;
const STEPS = 80;
const OPEN = new Set(['pending', 'leased', 'accepted']);

function simulate(seed: number) {
  const rng = prng(seed);
  const sim = new QueueSim(rng);
  for (let i = 0; i < STEPS; i++) sim.step(rng.chance(0.015) ? rng.pick(RARE_ACTIONS) : rng.pick(ACTIONS));
  sim.quiesce();
  return sim;
}

describe('queue invariants under random interleavings (seeded)', () => {
  it(`${RUNS} random sequences of arrive/lease/accept/outcome/stop/save-fail/crash keep every invariant`, () => {
    let delivered = 0;
    let unknown = 0;
    let stopped = 0;
    let archived = 0;
    for (let seed = 1; seed <= RUNS; seed++) {
      const sim = simulate(seed);
      const ctx = `seed ${seed}: state ${sim.snapshot.state}`;
      // Every check the simulator made on the way (double delivery, order, illegal or bulk moves).
      expect(sim.violations, ctx).toEqual([]);
      // No message lost: once healthy, every stored message reaches an outcome.
      expect(
        sim.messages.filter((m) => OPEN.has(m.status)).map((m) => `${m.id}:${m.status}`),
        ctx,
      ).toEqual([]);
      // None delivered twice, and in arrival order.
      expect(new Set(sim.received).size, ctx).toBe(sim.received.length);
      const seqs = sim.received.map((id) => Number(id.slice(1)));
      expect(seqs, ctx).toEqual([...seqs].sort((a, b) => a - b));
      for (const [id, h] of sim.history) {
        // `unknown` is never re-sent: after it, the message is never leased again.
        const u = h.indexOf('unknown');
        if (u >= 0) expect(h.slice(u).includes('leased'), `${ctx} ${id} ${h.join('>')}`).toBe(false);
        // `completed` only for messages the CLI really received.
        if (h.includes('completed')) expect(sim.received, `${ctx} ${id}`).toContain(id);
      }
      delivered += sim.received.length;
      unknown += sim.messages.filter((m) => m.status === 'unknown').length;
      stopped += sim.messages.filter((m) => m.status === 'terminal_failed').length;
      if (sim.snapshot.state === 'Archived') archived += 1;
    }
    // The generator really exercises the interesting paths.
    expect(delivered).toBeGreaterThan(RUNS * 2);
    expect(unknown).toBeGreaterThan(50);
    expect(stopped).toBeGreaterThan(50);
    expect(archived).toBeGreaterThan(50);
    console.info(`delivered ${delivered}, unknown ${unknown}, terminal_failed ${stopped}, archived runs ${archived}`);
  });

  it('is reproducible from its seed', () => {
    const a = simulate(42);
    const b = simulate(42);
    expect(a.received).toEqual(b.received);
    expect(a.messages).toEqual(b.messages);
  });
});
