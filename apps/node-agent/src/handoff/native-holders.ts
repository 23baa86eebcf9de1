import { execFile } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Executor } from '@bria/core/protocol';
import { type ProcessLayer, processTable, sameStart } from '../executors/process-table.ts';
import { normaliseStart, PS_ENV } from '../executors/ps-output.ts';

/**
 * Which processes hold a native session right now, whoever started them. A process holds a session
 * when any of these shows it (each checked against the pinned CLIs, docs/handoff.md):
 *  - Claude Code's live registry `<claude home>/sessions/<pid>.json` names the session id (written
 *    while the process runs, deleted on exit; a crash leaves it, so the pid and its start must match);
 *  - its argv names the id (`claude --resume <id>`, `--session-id <id>`, `codex resume <id>`);
 *  - it has the session's journal open (Codex keeps its rollout file open from the first prompt on;
 *    Linux: `/proc/<pid>/fd`, elsewhere `lsof` when installed).
 * `bria` says whether it runs inside the agent's own tmux server (a descendant of that server's pid);
 * every other holder runs "outside Bria": a terminal at the desk, another tmux, an IDE.
 */
export interface NativeHolder {
  executor: Executor;
  nativeId: string;
  pid: number;
  /** Start token of the pid (process-table.ts); with the pid it names one process. */
  startTime: string;
  ppid: number;
  via: 'registry' | 'argv' | 'journal';
  /** The process runs in the agent's own tmux server. */
  bria: boolean;
  /** Its tmux server socket and pane when it runs in one (TMUX / TMUX_PANE of its environment; Linux only). */
  tmux: { socket: string; pane: string } | null;
  /** The command line, clipped (for the user: "claude --resume …"). */
  command: string;
}

interface Proc {
  pid: number;
  ppid: number;
  startTime: string;
  argv: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ROLLOUT = /rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;
const CLAUDE_JOURNAL = /\/projects\/[^/]+\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

/** Which CLI a command line runs, by its program (or the script node runs), or null. */
export function cliOf(argv: readonly string[]): Executor | null {
  const names = argv.slice(0, 2).map((a) => basename(a));
  if (names[0] === 'node' || names[0] === 'bun')
    return names[1] === 'claude' || names[1]?.startsWith('claude.') ? 'claude' : names[1] === 'codex' ? 'codex' : null;
  if (names[0] === 'claude' || names[0]?.startsWith('claude.')) return 'claude';
  if (names[0] === 'codex') return 'codex';
  return null;
}

/** The session id a command line names (`--resume <id>`, `--resume=<id>`, `--session-id`, `-r`, `codex resume [opts] <id>`). */
export function argvSessionId(argv: readonly string[]): string | null {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = /^--(?:resume|session-id)=(.+)$/.exec(a);
    if (eq && UUID.test(eq[1]!)) return eq[1]!.toLowerCase();
    if (UUID.test(a)) {
      const before = argv[i - 1] ?? '';
      // Claude's options, or any bare UUID of a `codex resume` line (after options or `--`).
      if (['--resume', '-r', '--session-id'].includes(before) || argv.includes('resume')) return a.toLowerCase();
    }
  }
  return null;
}

/** The native id of a journal path (Claude `projects/<dir>/<id>.jsonl`, Codex `rollout-…-<id>.jsonl`). */
export function journalSessionId(path: string): { executor: Executor; nativeId: string } | null {
  const codex = ROLLOUT.exec(path);
  if (codex) return { executor: 'codex', nativeId: codex[1]!.toLowerCase() };
  const claude = CLAUDE_JOURNAL.exec(path);
  if (claude) return { executor: 'claude', nativeId: claude[1]!.toLowerCase() };
  return null;
}

async function procProcesses(): Promise<Proc[]> {
  const out: Proc[] = [];
  for (const name of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const cmd = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (!cmd) continue;
    const argv = cmd.split('\0').filter((a, i, all) => a !== '' || i < all.length - 1);
    if (!cliOf(argv)) continue;
    const st = await processTable().procStat(Number(name));
    if (st && st.state !== 'Z' && st.state !== 'X') out.push({ pid: st.pid, ppid: st.ppid, startTime: st.startTime, argv });
  }
  return out;
}

const PS_ARGS = ['-A', '-ww', '-o', 'pid=,ppid=,lstart=,args='];
const PS_LINE = /^\s*(\d+)\s+(\d+)\s+([A-Z][a-z]{2}\s+[A-Z][a-z]{2}\s+\d{1,2}\s+\d{1,2}:\d{2}:\d{2}\s+\d{4})\s+(.*)$/;

/** `ps` output with args: argv is split on spaces (ps cannot show the original boundaries). */
export function parsePsArgs(text: string): Proc[] {
  const out: Proc[] = [];
  for (const line of text.split('\n')) {
    const m = PS_LINE.exec(line);
    if (!m) continue;
    const argv = m[4]!.trim().split(/\s+/);
    if (cliOf(argv)) out.push({ pid: Number(m[1]), ppid: Number(m[2]), startTime: normaliseStart(m[3]!), argv });
  }
  return out;
}

function run(cmd: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env: PS_ENV, timeout: 5_000, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (err, stdout) => {
      // lsof exits 1 when one of the pids has no open file that matches: its output still counts.
      resolve(err && !stdout ? null : stdout);
    });
  });
}

async function openJournalsProc(pid: number): Promise<string[]> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  const out: string[] = [];
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    if (target.endsWith('.jsonl')) out.push(target);
  }
  return out;
}

/** `lsof -Fpn`: `p<pid>` then `n<name>` lines. Without lsof the journal check is skipped (argv and the registry remain). */
async function openJournalsLsof(pids: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  if (pids.length === 0) return out;
  const text = await run('lsof', ['-nP', '-Fpn', '-p', pids.join(',')]);
  let pid = 0;
  for (const line of (text ?? '').split('\n')) {
    if (line.startsWith('p')) pid = Number(line.slice(1));
    else if (line.startsWith('n') && line.endsWith('.jsonl')) out.set(pid, [...(out.get(pid) ?? []), line.slice(1)]);
  }
  return out;
}

async function tmuxOf(pid: number): Promise<NativeHolder['tmux']> {
  const env = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
  const vars = new Map(env.split('\0').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as const));
  const tmux = vars.get('TMUX');
  const pane = vars.get('TMUX_PANE');
  if (!tmux || !pane || !/^%\d+$/.test(pane)) return null;
  return { socket: tmux.split(',')[0]!, pane };
}

interface RegistryEntry {
  pid: number;
  sessionId: string;
  procStart: string | null;
}

async function claudeRegistry(claudeHome: string | null): Promise<RegistryEntry[]> {
  if (!claudeHome) return [];
  const dir = join(claudeHome, 'sessions');
  const out: RegistryEntry[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!/^\d+\.json$/.test(name)) continue;
    try {
      const r = JSON.parse(await readFile(join(dir, name), 'utf8')) as { pid?: unknown; sessionId?: unknown; procStart?: unknown };
      if (typeof r.sessionId !== 'string' || !UUID.test(r.sessionId)) continue;
      const pid = typeof r.pid === 'number' ? r.pid : Number.parseInt(name, 10);
      const procStart = typeof r.procStart === 'string' || typeof r.procStart === 'number' ? String(r.procStart) : null;
      out.push({ pid, sessionId: r.sessionId.toLowerCase(), procStart });
    } catch {
      // half written or not Claude's: the next look reads it again
    }
  }
  return out;
}

export interface HolderScanOptions {
  claudeHome: string | null;
  /** The agent's tmux server pid (its panes' processes are Bria's own), or null when none runs. */
  briaServerPid: number | null;
  /** CLIs Bria runs outside its own server (adopted in place in the user's tmux): Bria's too. */
  briaPids?: readonly number[];
  layer?: ProcessLayer;
}

/** Every process on this computer that holds a native session, in one look at the process table. */
export async function scanHolders(o: HolderScanOptions): Promise<NativeHolder[]> {
  const layer = o.layer ?? processTable().layer;
  const procs = layer === 'proc' ? await procProcesses() : parsePsArgs((await run('ps', PS_ARGS)) ?? '');
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const found = new Map<string, NativeHolder>();
  const add = async (holder: Proc, executor: Executor, nativeId: string, via: NativeHolder['via']) => {
    // The CLI as a person started it: Codex's native binary holds the journal under its node wrapper.
    let p = holder;
    for (let up = byPid.get(p.ppid); up && cliOf(up.argv) === executor; up = byPid.get(p.ppid)) p = up;
    const key = `${p.pid}:${executor}:${nativeId}`;
    if (found.has(key)) return;
    found.set(key, {
      executor,
      nativeId,
      pid: p.pid,
      startTime: p.startTime,
      ppid: p.ppid,
      via,
      bria: (o.briaPids ?? []).includes(p.pid) || (await descendsFrom(p.pid, o.briaServerPid, byPid)),
      tmux: layer === 'proc' ? await tmuxOf(p.pid) : null,
      command: commandOf(p.argv, executor),
    });
  };
  for (const p of procs) {
    const id = argvSessionId(p.argv);
    const executor = cliOf(p.argv)!;
    if (id) await add(p, executor, id, 'argv');
  }
  const journals =
    layer === 'proc'
      ? new Map(await Promise.all(procs.map(async (p) => [p.pid, await openJournalsProc(p.pid)] as const)))
      : await openJournalsLsof(procs.map((p) => p.pid));
  for (const [pid, files] of journals) {
    const p = byPid.get(pid);
    if (!p) continue;
    for (const f of files) {
      const j = journalSessionId(f);
      if (j) await add(p, j.executor, j.nativeId, 'journal');
    }
  }
  for (const r of await claudeRegistry(o.claudeHome)) {
    const p = byPid.get(r.pid);
    // A file a crash left behind names a dead pid or a pid now used by another process.
    if (!p || (r.procStart !== null && !sameToken(r.procStart, p.startTime))) continue;
    await add(p, 'claude', r.sessionId, 'registry');
  }
  return [...found.values()];
}

// The start as Claude recorded it; a form this layer cannot compare counts as the same (the pid is alive).
const sameToken = (recorded: string, current: string): boolean => sameStart(recorded, current) !== false;

/** "claude --resume <id>", "codex resume <id>": the program's name, then its arguments as given. */
function commandOf(argv: readonly string[], executor: Executor): string {
  const skip = basename(argv[0] ?? '') === 'node' || basename(argv[0] ?? '') === 'bun' ? 2 : 1;
  return [executor, ...argv.slice(skip)].join(' ').slice(0, 300);
}

async function descendsFrom(pid: number, ancestor: number | null, known: Map<number, Proc>): Promise<boolean> {
  if (ancestor === null) return false;
  let cur = pid;
  for (let depth = 0; depth < 64 && cur > 1; depth++) {
    if (cur === ancestor) return true;
    const next = known.get(cur)?.ppid ?? (await processTable().procStat(cur))?.ppid;
    if (next === undefined) return false;
    cur = next;
  }
  return false;
}

/** The holders of one session that run outside Bria's tmux. */
export const outside = (holders: readonly NativeHolder[], executor: Executor, nativeId: string): NativeHolder[] =>
  holders.filter((h) => !h.bria && h.executor === executor && h.nativeId === nativeId.toLowerCase());
