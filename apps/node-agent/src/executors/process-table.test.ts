import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAgentConfig } from '../env.ts';
import { chooseProcessLayer, procTable, type ProcessTable, sameStart, ticksToLstart } from './process-table.ts';
import { portableTable as portable, psRows } from './process-table-portable.ts';

const layers: ProcessTable[] = [procTable, portable];
const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) c.kill('SIGKILL');
});

async function until<T>(what: string, fn: () => Promise<T | null | false>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function run(script: string): ChildProcess {
  const c = spawn('sh', ['-c', script], { stdio: 'ignore' });
  started.push(c);
  return c;
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

describe('process layers agree on live processes', () => {
  it('children, tree, start identity (stable across calls and variants), liveness after a kill', async () => {
    const sh = run('sleep 30 & sleep 30; wait');
    const pid = sh.pid!;
    const kids = await until('two children', async () => ((await procTable.childrenOf(pid)).length === 2 ? procTable.childrenOf(pid) : null));
    for (const t of layers) {
      expect(sorted(await t.childrenOf(pid)), t.layer).toEqual(sorted(kids));
      const tree = await t.processTree(pid);
      expect(tree[0], t.layer).toBe(pid);
      expect(sorted(tree), t.layer).toEqual(sorted([pid, ...kids]));
      expect(sorted(t.processTreeSync(pid)), t.layer).toEqual(sorted(tree));
      const st = (await t.procStat(pid))!;
      expect(st, t.layer).toMatchObject({ pid, ppid: process.pid, state: 'S' });
      expect(st.comm, t.layer).toBe('sh');
      expect((await t.procStat(pid))?.startTime, t.layer).toBe(st.startTime);
      expect(t.procStatSync(pid)?.startTime, t.layer).toBe(st.startTime);
      expect(t.procStatsSync([pid, ...kids, 999_999_999]).get(pid)?.startTime, t.layer).toBe(st.startTime);
      expect([...t.procStatsSync([pid, ...kids]).keys()].sort(), t.layer).toEqual(sorted([pid, ...kids]));
      expect(sorted([...(await t.procStats([pid, ...kids, 999_999_999])).keys()]), t.layer).toEqual(sorted([pid, ...kids]));
      expect((await t.procStats([pid])).get(pid)?.startTime, t.layer).toBe(st.startTime);
      expect(await t.isAlive(pid), t.layer).toBe(true);
      expect(t.isAliveSync(pid), t.layer).toBe(true);
    }
    // The two tokens name the same moment: /proc ticks and ps's lstart are two spellings of it.
    const lstart = Date.parse(`${(await portable.procStat(pid))!.startTime} UTC`);
    expect(Math.abs(lstart - Date.now())).toBeLessThan(60_000);
    expect((await procTable.procStat(pid))!.startTime).toMatch(/^\d+$/);
    // Another process started in another second has another token (the token is not constant).
    expect((await portable.procStat(1))!.startTime).not.toBe((await portable.procStat(pid))!.startTime);
    // Across layers (BRIA_AGENT_PROCESS_LAYER changed with CLIs running): ticks turned into lstart as
    // procps does, to the exact text.
    const ticks = (await procTable.procStat(pid))!.startTime;
    const text = (await portable.procStat(pid))!.startTime;
    expect(ticksToLstart(ticks)).toBe(text);
    expect(sameStart(ticks, text)).toBe(true);
    expect(sameStart(text, ticks)).toBe(true);
    expect(sameStart(ticks, (await portable.procStat(1))!.startTime)).toBe(false);
    expect(sameStart((await procTable.procStat(1))!.startTime, text)).toBe(false);

    process.kill(kids[0]!, 'SIGKILL');
    sh.kill('SIGKILL');
    await until('the shell reaped', async () => !(await procTable.procExists(pid)));
    for (const t of layers) {
      expect(await t.isAlive(pid), t.layer).toBe(false);
      expect(await t.procExists(pid), t.layer).toBe(false);
      expect(t.isAliveSync(pid), t.layer).toBe(false);
      expect(await t.procStat(pid), t.layer).toBeNull();
      expect(t.procStatSync(pid), t.layer).toBeNull();
      expect(await t.processTree(pid), t.layer).toEqual([]);
      expect(await t.childrenOf(pid), t.layer).toEqual([]);
      expect((await t.procStats([pid])).size, t.layer).toBe(0);
    }
  });

  it('a zombie exists but is not alive and is left out of the tree, in both layers', async () => {
    // `exec sleep` replaces the shell, so nobody reaps the first sleep when it ends.
    const sh = run('sleep 0 & exec sleep 30');
    const pid = sh.pid!;
    const [zombie] = await until('a zombie child', async () => {
      const kids = await procTable.childrenOf(pid);
      return kids.length === 1 && (await procTable.procStat(kids[0]!))?.state === 'Z' ? kids : null;
    });
    for (const t of layers) {
      expect((await t.procStat(zombie!))?.state, t.layer).toBe('Z');
      expect(await t.isAlive(zombie!), t.layer).toBe(false);
      expect(t.isAliveSync(zombie!), t.layer).toBe(false);
      expect(await t.procExists(zombie!), t.layer).toBe(true);
      expect((await t.procStats([zombie!])).get(zombie!)?.state, t.layer).toBe('Z');
      expect(await t.childrenOf(pid), t.layer).toEqual([zombie]);
      expect(await t.processTree(pid), t.layer).toEqual([pid]);
      expect(t.processTreeSync(pid), t.layer).toEqual([pid]);
    }
  });

  it('answers nothing for pids that cannot exist', async () => {
    for (const t of layers) {
      for (const pid of [0, -1, Number.NaN, 999_999_999]) {
        expect(await t.procStat(pid), `${t.layer} ${pid}`).toBeNull();
        expect(await t.isAlive(pid), `${t.layer} ${pid}`).toBe(false);
      }
    }
  });
});

describe('ps answers', () => {
  it('are trusted only when they list the asking process; a usage error, a kill or a missing ps throws', () => {
    const args = ['-p', '7', '-p', '42'];
    const self = '   42     1 S    Fri Dec  4 14:02:52 2026 node\n';
    expect(psRows({ status: 0, stdout: `    7     1 S    Fri Dec  4 14:02:53 2026 sleep\n${self}`, stderr: '' }, args, 42).map((r) => r.pid)).toEqual([7, 42]);
    // The asked-for process is gone: only the asker is listed (whatever the status says).
    expect(psRows({ status: 0, stdout: self, stderr: '' }, args, 42).map((r) => r.pid)).toEqual([42]);
    expect(psRows({ status: 1, stdout: self, stderr: '' }, args, 42).map((r) => r.pid)).toEqual([42]);
    // procps, captured: `ps -o foo= -p 1` → status 1, nothing on stdout, the complaint on stderr.
    expect(() => psRows({ status: 1, stdout: '', stderr: 'error: unknown user-defined format specifier "foo"\n\nUsage:\n ps [options]' }, args, 42)).toThrow(
      /format specifier/,
    );
    expect(() => psRows({ status: 1, stdout: '', stderr: '' }, args, 42)).toThrow(/not listed/);
    expect(() => psRows({ status: null, stdout: self, stderr: '', error: new Error('spawnSync ps ETIMEDOUT') }, args, 42)).toThrow(/ETIMEDOUT/);
  });
});

describe('start tokens', () => {
  it('compare as text within a form (lstart padding aside), never across unknown forms', () => {
    expect(sameStart('987654', '987654')).toBe(true);
    expect(sameStart('987654', '987655')).toBe(false);
    expect(sameStart('Fri Dec  4 14:02:52 2026', 'Fri Dec 4 14:02:52 2026')).toBe(true);
    expect(sameStart('Fri Dec 4 14:02:52 2026', 'Fri Dec 4 14:02:53 2026')).toBe(false);
    expect(sameStart('', '987654')).toBe(false);
    expect(sameStart('', 'Fri Dec 4 14:02:52 2026')).toBe(false);
    expect(sameStart('1', 'Mon Jan 5 10:00:00 2026')).toBe(false);
  });
});

describe('process layer choice', () => {
  it('Linux reads /proc unless told otherwise; macOS and others use ps; /proc is refused where there is none', () => {
    expect(chooseProcessLayer({ platform: 'linux' })).toBe('proc');
    expect(chooseProcessLayer({ platform: 'linux', forced: 'portable' })).toBe('portable');
    expect(chooseProcessLayer({ platform: 'linux', forced: 'proc' })).toBe('proc');
    expect(chooseProcessLayer({ platform: 'darwin' })).toBe('portable');
    expect(chooseProcessLayer({ platform: 'darwin', forced: 'portable' })).toBe('portable');
    expect(chooseProcessLayer({ platform: 'freebsd' })).toBe('portable');
    expect(() => chooseProcessLayer({ platform: 'darwin', forced: 'proc' })).toThrow(/needs Linux's \/proc/);
  });

  it("reads BRIA_AGENT_PROCESS_LAYER from the agent's environment", () => {
    const env = { BRIA_AGENT_TOKEN: 'a-long-enough-token', HOME: '/tmp' };
    expect(loadAgentConfig([], env, 'linux').processLayer).toBe('proc');
    expect(loadAgentConfig([], { ...env, BRIA_AGENT_PROCESS_LAYER: 'portable' }, 'linux').processLayer).toBe('portable');
    expect(loadAgentConfig([], env, 'darwin').processLayer).toBe('portable');
    expect(() => loadAgentConfig([], { ...env, BRIA_AGENT_PROCESS_LAYER: 'procfs' }, 'linux')).toThrow(/BRIA_AGENT_PROCESS_LAYER/);
  });
});
