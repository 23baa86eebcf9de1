import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '@bria/testkit/wait';
import { procStat } from '../executors/process-table.ts';
import { checkAdoption, isAdopted } from './adopt.ts';
import { scanHolders } from './native-holders.ts';

// The checks before an adoption, on real processes: a stand-in CLI (`node <dir>/claude --resume
// <id>`: Bria recognises a Claude by its program name and its id by argv) begun by hand in a tmux
// server of the user's own, in no tmux at all, and with an environment naming a pane that does not
// exist. Every refusal has its code; nothing is touched.

const dir = mkdtempSync(join(tmpdir(), 'bria-adopt-'));
const fake = join(dir, 'claude');
writeFileSync(fake, 'setInterval(() => {}, 1000);\n');
const socket = `adopt-${process.pid}`;
const user = (...a: string[]) => execFileSync('tmux', ['-L', socket, ...a], { encoding: 'utf8', env: { ...process.env, TMUX: '' } });
const env = { ...process.env, CLAUDE_CONFIG_DIR: join(dir, 'claude-home') };
const children: ChildProcess[] = [];

async function holderOf(nativeId: string) {
  return waitUntil(
    'the stand-in CLI seen holding its id',
    async () => (await scanHolders({ claudeHome: null, briaServerPid: null })).find((h) => h.nativeId === nativeId) ?? null,
    10_000,
  );
}

const base = (nativeId: string, pid: number, startTime: string) => ({
  env,
  briaServerPid: null,
  briaPids: [],
  executor: 'claude' as const,
  nativeId,
  pid,
  startTime,
  cwd: dir,
  runDir: join(dir, 'run'),
});

let inTmux: { id: string; pid: number; start: string; pane: string };

beforeAll(async () => {
  const id = randomUUID();
  // A shell in the pane, the CLI its child: as a person types `claude --resume <id>` at a prompt.
  user('new-session', '-d', '-s', 'work', '-x', '100', '-y', '30', 'sh');
  const pane = user('display-message', '-p', '-t', 'work', '#{pane_id}').trim();
  user('send-keys', '-t', 'work', '-l', `${process.execPath} ${fake} --resume ${id}`);
  user('send-keys', '-t', 'work', 'Enter');
  const h = await holderOf(id);
  inTmux = { id, pid: h.pid, start: h.startTime, pane };
});

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  try {
    const path = user('display-message', '-p', '#{socket_path}').trim();
    user('kill-server');
    // tmux 3.3a leaves the socket file of a killed server behind.
    rmSync(path, { force: true });
  } catch {
    // gone
  }
});

describe('adopt in place: the checks', () => {
  it("accepts the CLI in a pane of the user's own tmux, naming that server by path and that pane", async () => {
    const r = await checkAdoption(base(inTmux.id, inTmux.pid, inTmux.start));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const path = user('display-message', '-p', '#{socket_path}').trim();
    expect(r.identity).toMatchObject({ tmuxSocket: path, tmuxSession: 'work', paneId: inTmux.pane, cliPid: inTmux.pid, nativeId: inTmux.id });
    expect(isAdopted(r.identity)).toBe(true);
    // The pane runs the shell; the CLI is its child.
    expect((await procStat(inTmux.pid))?.ppid).toBe(r.identity.panePid);
    expect(r.tmux.userServer).toBe(true);
  });

  it('refuses another process than the one the user saw, or one that ended: holder_changed', async () => {
    const other = await checkAdoption(base(inTmux.id, inTmux.pid + 100_000, inTmux.start));
    expect(other).toMatchObject({ ok: false, code: 'holder_changed' });
    expect(other.ok === false && other.reason).toContain(`pid ${inTmux.pid} does now`);
    const gone = await checkAdoption(base(randomUUID(), inTmux.pid, inTmux.start));
    expect(gone).toMatchObject({ ok: false, code: 'holder_changed' });
  });

  it('refuses when the agent runs as another user: other_user', async () => {
    const r = await checkAdoption({ ...base(inTmux.id, inTmux.pid, inTmux.start), uid: (process.getuid?.() ?? 0) + 4242 });
    expect(r).toMatchObject({ ok: false, code: 'other_user' });
  });

  it('refuses a CLI in no tmux: not_in_tmux', async () => {
    const id = randomUUID();
    const c = spawn(process.execPath, [fake, '--resume', id], { env: { ...env, TMUX: '', TMUX_PANE: '' }, stdio: 'ignore' });
    children.push(c);
    const h = await holderOf(id);
    expect(h.tmux).toBeNull();
    expect(await checkAdoption(base(id, h.pid, h.startTime))).toMatchObject({ ok: false, code: 'not_in_tmux' });
  });

  it('refuses when the pane its environment names does not exist: pane_gone', async () => {
    const id = randomUUID();
    const path = user('display-message', '-p', '#{socket_path}').trim();
    const c = spawn(process.execPath, [fake, '--resume', id], { env: { ...env, TMUX: `${path},1,0`, TMUX_PANE: '%999' }, stdio: 'ignore' });
    children.push(c);
    const h = await holderOf(id);
    expect(await checkAdoption(base(id, h.pid, h.startTime))).toMatchObject({ ok: false, code: 'pane_gone' });
  });

  it('refuses when the pane runs something else than that CLI: pane_gone', async () => {
    const id = randomUUID();
    const path = user('display-message', '-p', '#{socket_path}').trim();
    // The environment names the real pane, but this process is not in its tree.
    const c = spawn(process.execPath, [fake, '--resume', id], { env: { ...env, TMUX: `${path},1,0`, TMUX_PANE: inTmux.pane }, stdio: 'ignore' });
    children.push(c);
    const h = await holderOf(id);
    expect(await checkAdoption(base(id, h.pid, h.startTime))).toMatchObject({ ok: false, code: 'pane_gone' });
  });

  it("counts an adopted pid as Bria's own, so the guard and discovery never call it a desk CLI", async () => {
    const all = await scanHolders({ claudeHome: null, briaServerPid: null, briaPids: [inTmux.pid] });
    expect(all.find((h) => h.nativeId === inTmux.id)?.bria).toBe(true);
  });
});
