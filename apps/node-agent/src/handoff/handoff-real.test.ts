import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeBin, codexBin } from '@bria/testkit/cli-homes';
import { waitUntil } from '@bria/testkit/wait';
import { SessionControl } from '../commands/session-control.ts';
import { claudeConfigDir } from '../executors/claude-driver.ts';
import { isAlive } from '../executors/proc-tree.ts';
import { NativeIdSampler, runsWithHome } from '../../test-support/id-sampler.ts';
import { createRig, type Rig } from '../../test-support/test-rig.ts';
import { type NativeHolder, scanHolders } from './native-holders.ts';

// A session begun by hand at the computer, with the real pinned CLIs against the local mock model:
// in a tmux server of the user's own (not Bria's) and in a plain terminal (a pty from `script`, no
// tmux). Bria must see the desk CLI, refuse to start a second one on its id, and take it over only
// when asked for exactly that process. A sampler reads the process table every 100 ms through the
// whole file and must never see two CLIs on one native id.

type Kind = 'claude' | 'codex';
interface Desk {
  pid: number;
  nativeId: string;
  stop(): void;
}

/** The agent's holder scan, this rig's processes only (its HOME): the suite's other files run CLIs beside it. */
async function rigHolders(rig: Rig, briaServerPid: number | null, layer?: 'proc' | 'portable'): Promise<NativeHolder[]> {
  const all = await scanHolders({ claudeHome: claudeConfigDir(rig.env), briaServerPid, ...(layer ? { layer } : {}) });
  return all.filter((h) => runsWithHome(h.pid, rig.env.HOME!));
}

function deskCommand(kind: Kind, resumeId?: string): string[] {
  if (kind === 'claude') return [claudeBin, ...(resumeId ? ['--resume', resumeId] : [])];
  // A person's Codex: the in-process mode (docs/handoff.md: the daemon mode is not verified).
  return [codexBin, ...(resumeId ? ['resume', resumeId] : []), '--no-daemon'];
}

async function waitForDeskHolder(rig: Rig, kind: Kind, pick: (h: NativeHolder) => boolean): Promise<NativeHolder> {
  return waitUntil(
    `the hand-started ${kind} holding its session`,
    async () => {
      const all = await rigHolders(rig, null);
      return all.find((h) => h.executor === kind && pick(h)) ?? null;
    },
    60_000,
  );
}

/** A CLI started by hand in a tmux server of the user's own; its first prompt typed like a person would. */
async function deskInUserTmux(rig: Rig, kind: Kind, text: string): Promise<Desk & { socket: string }> {
  const socket = `desk-${randomUUID().slice(0, 8)}`;
  const env = { ...rig.env, TMUX: '' };
  execFileSync('tmux', ['-L', socket, 'new-session', '-d', '-s', 'desk', '-x', '200', '-y', '50', '-c', rig.work, ...deskCommand(kind)], { env });
  const tmux = (...a: string[]) => execFileSync('tmux', ['-L', socket, ...a], { env, encoding: 'utf8' });
  await waitUntil('the desk CLI at its prompt', async () => /❯|›/.test(tmux('capture-pane', '-p', '-t', 'desk')), 60_000);
  tmux('send-keys', '-t', 'desk', '-l', text);
  await waitUntil('the text in the desk pane', async () => tmux('capture-pane', '-p', '-t', 'desk').includes(text.slice(0, 20)), 30_000);
  tmux('send-keys', '-t', 'desk', 'Enter');
  const req = await rig.mock.waitForRequest((r) => r.kind === 'turn' && r.userText === text, 60_000);
  const h = await waitForDeskHolder(rig, kind, (x) => x.tmux !== null && (kind === 'codex' || x.nativeId === req.sessionId));
  return {
    pid: h.pid,
    nativeId: h.nativeId,
    socket,
    stop: () => {
      try {
        tmux('kill-server');
      } catch {
        /* gone */
      }
    },
  };
}

/** A CLI resumed by hand in a plain terminal (a pty from `script`), outside any tmux. */
async function deskInTerminal(rig: Rig, kind: Kind, nativeId: string): Promise<Desk & { child: ChildProcess }> {
  const line = deskCommand(kind, nativeId)
    .map((a) => `'${a}'`)
    .join(' ');
  const child = spawn('script', ['-qfec', line, '/dev/null'], {
    cwd: rig.work,
    env: { ...rig.env, TMUX: '', TERM: 'xterm-256color' },
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  const h = await waitForDeskHolder(rig, kind, (x) => x.nativeId === nativeId && x.tmux === null);
  return {
    pid: h.pid,
    nativeId,
    child,
    stop: () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    },
  };
}

describe.each(['claude', 'codex'] as const)('%s begun by hand at the computer', (kind) => {
  let rig: Rig;
  let control: SessionControl;
  let sampler: NativeIdSampler;
  const events: { event: string; generation: number; payload: Record<string, unknown> }[] = [];
  const desks: Desk[] = [];

  beforeAll(async () => {
    rig = await createRig(kind);
    sampler = new NativeIdSampler({ claudeHome: claudeConfigDir(rig.env), home: rig.env.HOME! });
    sampler.start();
    control = new SessionControl({
      dir: join(rig.root, 'agent'),
      tmux: rig.tmux,
      bins: { claude: claudeBin, codex: codexBin },
      env: rig.env,
      emit: (e) => events.push({ event: e.event, generation: e.generation, payload: e.payload as Record<string, unknown> }),
      log: () => undefined,
    });
  }, 120_000);
  afterAll(async () => {
    sampler?.stop();
    for (const d of desks) d.stop();
    await rig?.dispose();
  });

  let first: Desk & { socket: string };

  it('is seen holding its session from a user tmux server, outside Bria', async () => {
    first = await deskInUserTmux(rig, kind, `desk hello ${kind} ${randomUUID().slice(0, 8)}`);
    desks.push(first);
    const briaServerPid = await rig.tmux.serverPid();
    const all = await rigHolders(rig, briaServerPid);
    const mine = all.filter((h) => h.nativeId === first.nativeId);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ executor: kind, pid: first.pid, bria: false });
    // Claude: its live registry (or the journal while it has it open); Codex: its open rollout file.
    expect(kind === 'claude' ? ['registry', 'journal'] : ['journal']).toContain(mine[0]!.via);
    expect(mine[0]!.tmux?.pane).toMatch(/^%\d+$/);
    expect(mine[0]!.tmux?.socket).toContain(first.socket);
    // The portable layer (`ps` + `lsof`, what macOS uses) finds the same process.
    const portable = await rigHolders(rig, briaServerPid, 'portable');
    expect(portable.filter((h) => h.nativeId === first.nativeId).map((h) => [h.pid, h.bria])).toEqual([[first.pid, false]]);
  }, 180_000);

  it('a resume of that id is refused with the reason, and no second CLI starts', async () => {
    const sessionId = randomUUID();
    const r = await control.resume(sessionId, { generation: 1, executor: kind, folder: rig.work, nativeSessionId: first.nativeId });
    expect(r).toMatchObject({ ok: false, refused: true, code: 'held_elsewhere' });
    const ev = events.find((e) => e.event === 'resume_failed' && e.payload.code === 'held_elsewhere');
    expect(ev?.payload.holder).toMatchObject({ pid: first.pid, inTmux: true });
    expect(String(ev?.payload.reason)).toMatch(new RegExp(`running in a tmux pane on .* \\(pid ${first.pid}, since `));
    expect(await isAlive(first.pid)).toBe(true);
    expect((await rig.tmux.listPanes()).filter((p) => p.sessionName !== 'bria-keeper')).toEqual([]);
  }, 60_000);

  it('"Continue here" for another process than the one on record is refused too', async () => {
    const r = await control.resume(randomUUID(), {
      generation: 1,
      executor: kind,
      folder: rig.work,
      nativeSessionId: first.nativeId,
      takeOver: { pid: first.pid + 100_000, startTime: '1' },
    });
    expect(r).toMatchObject({ ok: false, code: 'held_elsewhere' });
    expect(await isAlive(first.pid)).toBe(true);
  }, 60_000);

  it('"Continue here" ends the desk CLI with its own keys, resumes the same id in Bria and delivers once', async () => {
    const sessionId = randomUUID();
    const holder = (await rigHolders(rig, await rig.tmux.serverPid())).find((h) => h.nativeId === first.nativeId)!;
    const r = await control.resume(sessionId, {
      generation: 1,
      executor: kind,
      folder: rig.work,
      nativeSessionId: first.nativeId,
      takeOver: { pid: holder.pid, startTime: holder.startTime },
    });
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true, nativeSessionId: first.nativeId });
    expect(await isAlive(first.pid)).toBe(false);
    const text = `after the take-over ${randomUUID().slice(0, 8)}`;
    const d = await control.deliver(sessionId, { messageId: randomUUID(), text });
    expect(d).toMatchObject({ ok: true });
    await rig.mock.waitForRequest((q) => q.kind === 'turn' && q.userText === text, 60_000);
    expect(rig.mock.requests.filter((q) => q.kind === 'turn' && q.userText === text)).toHaveLength(1);
    const now = await rigHolders(rig, await rig.tmux.serverPid());
    expect(now.filter((h) => h.nativeId === first.nativeId).map((h) => h.bria)).toEqual([true]);
    // Close Bria's CLI: the next step resumes the session by hand.
    expect(await control.close(sessionId)).toMatchObject({ ok: true });
  }, 180_000);

  it('resumed by hand in a plain terminal: refused, then taken over with signals', async () => {
    const desk = await deskInTerminal(rig, kind, first.nativeId);
    desks.push(desk);
    const refused = await control.resume(randomUUID(), { generation: 1, executor: kind, folder: rig.work, nativeSessionId: first.nativeId });
    expect(refused).toMatchObject({ ok: false, code: 'held_elsewhere' });
    expect(events.at(-1)?.payload.holder).toMatchObject({ pid: desk.pid, inTmux: false });
    const holder = (await rigHolders(rig, null)).find((h) => h.nativeId === first.nativeId)!;
    const sessionId = randomUUID();
    const r = await control.resume(sessionId, {
      generation: 1,
      executor: kind,
      folder: rig.work,
      nativeSessionId: first.nativeId,
      takeOver: { pid: holder.pid, startTime: holder.startTime },
    });
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true, nativeSessionId: first.nativeId });
    expect(await isAlive(desk.pid)).toBe(false);
    expect(await control.close(sessionId)).toMatchObject({ ok: true });
  }, 180_000);

  it('the sampler never saw two CLIs on one native id', () => {
    expect(sampler.seen).toBeGreaterThan(20);
    // The doubles first: a failure then names the processes (pid, parent, state, command line).
    expect(sampler.doubles).toEqual([]);
    expect(sampler.max.get(first.nativeId)).toBe(1);
    expect(Math.max(...sampler.max.values())).toBe(1);
    expect(existsSync(rig.work)).toBe(true);
  });
});
