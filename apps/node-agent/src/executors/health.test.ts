import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tmux } from '../tmux/tmux.ts';
import { type DeathReport, HealthMonitor } from './health.ts';
import { waitForCliPid } from './launch.ts';
import { PROCESS_LAYERS, procStat, useProcessLayer } from './process-table.ts';
import type { SessionIdentity } from './types.ts';

// The monitor over a real pane whose "CLI" is `sleep`: death is found through the tmux subscription
// (control client) and, without a control client, by polling.
const dir = mkdtempSync(join(tmpdir(), 'bria-health-'));
const tmux = new Tmux({ socketName: `bria-test-${process.pid}-health`, runDir: join(dir, 'run') });
afterAll(async () => {
  await tmux.killServer();
});

async function paneWithCli(t: Tmux, name: string): Promise<SessionIdentity> {
  const pane = await t.newSession({ name, cwd: dir, command: ['sleep', '300'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  const cliPid = (await waitForCliPid(t, pane.paneId, pane.panePid, 5000))!;
  const st = (await procStat(cliPid))!;
  return {
    executor: 'claude',
    tmuxSocket: t.socketName,
    tmuxSession: name,
    paneId: pane.paneId,
    panePid: pane.panePid,
    cliPid,
    cliStartTime: st.startTime,
    cwd: dir,
    nativeId: 'x',
    journalPath: null,
    exitFile: pane.exitFile,
  };
}

function watch(t: Tmux, id: SessionIdentity) {
  let report: DeathReport | null = null;
  const m = new HealthMonitor({ tmux: t, identity: id, intervalMs: 1000, workRunning: () => false, onBlocked: () => undefined, onDeath: (r) => (report = r) });
  m.start();
  return { m, report: () => report };
}

async function until(fn: () => boolean, ms: number): Promise<number> {
  const t0 = Date.now();
  while (!fn()) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - t0;
}

// Over both process layers: the identity's start time is the layer's token, and without a control
// client every tick asks the layer (a `ps` per tick for the portable one).
describe.each(PROCESS_LAYERS)('HealthMonitor (%s process layer)', (layer) => {
  beforeAll(() => {
    useProcessLayer(layer);
  });
  afterAll(() => {
    useProcessLayer('proc');
  });

  for (const control of [true, false]) {
    it(`reports a CLI killed with SIGKILL once, with its exit status (${control ? 'tmux subscription' : 'polling'})`, async () => {
      const t = control ? tmux : new Tmux({ socketName: tmux.socketName, runDir: tmux.runDir, control: false });
      await t.ensureServer();
      const id = await paneWithCli(t, `health-${layer}-${control}`);
      const w = watch(t, id);
      if (control) await until(() => t.paneStates?.get(id.paneId) === false, 5000);
      expect(id.cliStartTime).toMatch(layer === 'proc' ? /^\d+$/ : /^[A-Z][a-z]{2} [A-Z][a-z]{2} \d/);
      await new Promise((r) => setTimeout(r, 1500)); // the first probe has run, the idle rhythm is on
      expect(w.report()).toBeNull(); // a live CLI is not taken for dead
      process.kill(id.cliPid, 'SIGKILL');
      const ms = await until(() => w.report() !== null, 10_000);
      const r = w.report()!;
      expect(r.exitStatus).toBe(137);
      expect(r.paneDead).toBe(true);
      expect(r.pids).toContain(id.cliPid);
      expect(r.stillAlive).toEqual([]);
      // ≤ 1 s until tmux (or the poll) sees it, 200 ms pause, exit-status read; slack for a busy machine.
      expect(ms).toBeLessThan(4000);
      w.m.stop();
      await t.killSession(id.tmuxSession);
    });
  }

  it('reports a pane whose session was killed from outside', async () => {
    await tmux.ensureServer();
    const id = await paneWithCli(tmux, `health-${layer}-gone`);
    const w = watch(tmux, id);
    await until(() => tmux.paneStates?.get(id.paneId) === false, 5000);
    await tmux.killSession(id.tmuxSession);
    await until(() => w.report() !== null, 10_000);
    expect(w.report()!.paneDead).toBe(true);
  });
});
