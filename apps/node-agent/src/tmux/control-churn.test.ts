// tmux 3.3a's server crashes (SIGSEGV) when two control-mode clients attach or detach at the same
// moment, which the agent's pane followers did whenever several sessions began or ended turns
// together. This drives that churn on a real private server: several sessions, each with a loop
// that opens a pane follower and closes it again at once (the tightest form of a short turn). The
// server must be the same process at the end. Without the one-at-a-time rule in control.ts the
// server died within a few hundred attaches on this machine (docs/cli-facts.md, "tmux control clients").
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Tmux } from './tmux.ts';

const dir = mkdtempSync(join(tmpdir(), 'bria-tmux-churn-'));
const tmux = new Tmux({ socketName: `bria-test-${process.pid}-churn`, runDir: join(dir, 'run') });
const SESSIONS = 6;
const CYCLES_PER_SESSION = 150;

afterAll(async () => {
  await tmux.killServer();
  rmSync(dir, { recursive: true, force: true });
});

describe('pane followers opened and closed together', () => {
  it('leave the tmux server running (same pid) after many concurrent attaches and detaches', async () => {
    const panes = [];
    for (let i = 0; i < SESSIONS; i++) {
      // Output while followers come and go, as a CLI drawing its answer.
      const s = await tmux.newSession({
        name: `churn-${i}`,
        cwd: dir,
        command: ['sh', '-c', 'while :; do echo drawing; sleep 0.01; done'],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
      panes.push({ sessionName: `churn-${i}`, paneId: s.paneId });
    }
    const serverPid = await tmux.serverPid();
    expect(serverPid).toBeGreaterThan(0);

    let opened = 0;
    await Promise.all(
      panes.map(async (p) => {
        for (let n = 0; n < CYCLES_PER_SESSION; n++) {
          const f = await tmux.followPane({ ...p, onOutput: () => undefined });
          // A follower that could not attach means the server is gone: stop and let the check say so.
          if (!f) return;
          opened++;
          f.close();
        }
      }),
    );

    expect(opened).toBe(SESSIONS * CYCLES_PER_SESSION);
    expect(await tmux.serverPid()).toBe(serverPid);
    // The panes (and so the CLIs they would hold) are all still there.
    const listed = await tmux.run(['list-panes', '-a', '-F', '#{pane_id} #{pane_dead}']);
    for (const p of panes) expect(listed).toContain(`${p.paneId} 0`);
    // And a follower still follows: the next output of a pane reaches it.
    const first = panes[0]!;
    let follower: Awaited<ReturnType<typeof tmux.followPane>> = null;
    const seen = await new Promise<string>((resolve) => {
      void tmux.followPane({ ...first, onOutput: (d) => resolve(d) }).then((f) => (follower = f));
    });
    expect(seen).toContain('drawing');
    (follower as { close(): void } | null)?.close();
  });
});
