import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import path from 'node:path';
import { claudeConfigDir } from '../../apps/node-agent/src/executors/claude-driver.ts';
import { scanHolders } from '../../apps/node-agent/src/handoff/native-holders.ts';
import { browserKeys, HANG } from '../../packages/testkit/src/push-endpoint.ts';
import { endDesk, startDesk } from '../../packages/testkit/src/desk.ts';
import { adoptInPlace, continueHere, createSchedule, sendTestPush, subscribePush } from '../../packages/core/src/services/index.ts';
import type { ChaosSystem } from './chaos-system.ts';
import { type ForgeRecord, forgeViolations, type PushRecord, pushViolations, type ScheduleRecord } from './edge-invariants.ts';
import type { Prng } from './prng.ts';
import type { TrackedSession, User } from './user-actions.ts';

/**
 * The fault kinds of the hand-over round (issue 35): a desk CLI racing a take-over or an adoption,
 * a schedule due during an outage, a push service failing, forged and oversized hook input. Each
 * records what it did; `edge-invariants.ts` judges the records after the run.
 */
export const EDGE_FAULT_KINDS = ['desk_takeover', 'schedule_outage', 'push_fail', 'hook_forge'] as const;
export type EdgeFaultKind = (typeof EDGE_FAULT_KINDS)[number];

/** Faults that can cut, delay or restart the node's connection or its agent (a forged line's check skips their windows). */
export const DISRUPTING = new Set<string>([
  'hub_kill',
  'agent_kill',
  'pg_restart',
  'ws_cut',
  'ws_delay',
  'node_away',
  'agent_restart_prompt',
  'hub_kill_prompt',
  'start_dialog_restart',
  'schedule_outage',
]);

/** States whose CLI Bria does not run: a person may resume the session by hand at the computer. */
const DESK_TARGETS = ['Archived', 'ResumeFailed', 'AwaitingRecovery'] as const;
type DeskState = (typeof DESK_TARGETS)[number];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every `every` ms until it gives a value (errors count as none), at most `ms`; null after. */
export async function waitFor<T>(ms: number, every: number, probe: () => Promise<T | null>): Promise<T | null> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const r = await probe().catch(() => null);
    if (r) return r;
    await sleep(every);
  }
  return null;
}

export class EdgeFaults {
  readonly schedules: ScheduleRecord[] = [];
  readonly pushes: PushRecord[] = [];
  readonly forges: ForgeRecord[] = [];
  /** How each take-over race ended: `<how>+<racer>:<outcome>` → count (printed with --verbose). */
  readonly takeovers: Record<string, number> = {};
  private devices = 0;
  /** Sessions a desk fault (`desk_start`, `desk_takeover`) is working on: two never share one. */
  readonly deskBusy = new Set<string>();

  constructor(
    private readonly sys: ChaosSystem,
    private readonly rng: Prng,
    private readonly user: User | undefined,
    /** Bumped by every fault that can cut or delay the node's connection (the forge check skips those windows). */
    private readonly disruptions: () => number,
    /** The desk terminals still open (the injector ends them at dispose). */
    private readonly desks: Set<string>,
  ) {}

  /** `blocked_on_prompt` evidence already answered at the desk (each is answered once). */
  private readonly deskAnswered = new Set<bigint>();

  /**
   * The person at the desk answers a dialog in an adopted CLI's pane. A CLI begun by hand has no
   * Bria hooks, so its permission dialogs stay in its pane (docs/handoff.md, "Permission dialogs"):
   * Bria reports them (`blocked_on_prompt`) and only the person can answer, here with Enter (the
   * dialog's first choice, allow once). Called while the run settles; returns how many were answered.
   */
  async answerAtDesk(sessionIds: string[]): Promise<number> {
    const { sys } = this;
    let n = 0;
    const rows = await sys.db.session.findMany({ where: { id: { in: sessionIds }, state: 'Running' }, select: { id: true, identity: true } });
    for (const r of rows) {
      const id = r.identity as { host?: { tmuxSocket?: string; paneId?: string } } | null;
      const socket = id?.host?.tmuxSocket;
      if (!socket?.startsWith('/') || !id?.host?.paneId) continue;
      // The newest of the turn's own steps: a dialog still open has had no turn event after it.
      const last = await sys.db.sessionEvidence.findFirst({
        where: { sessionId: r.id, event: { in: ['blocked_on_prompt', 'turn_started', 'turn_completed', 'turn_final'] } },
        orderBy: { id: 'desc' },
        select: { id: true, event: true },
      });
      if (last?.event !== 'blocked_on_prompt' || this.deskAnswered.has(last.id)) continue;
      this.deskAnswered.add(last.id);
      try {
        const at = Date.now();
        execFileSync('tmux', ['-S', socket, 'send-keys', '-t', id.host.paneId, 'Enter'], { stdio: 'ignore', timeout: 10_000 });
        this.deskAnswers.push({ sessionId: r.id, at });
        n += 1;
      } catch {
        // The desk's terminal is gone: the CLI went with it and recovery takes over.
      }
    }
    return n;
  }

  /** Dialogs the person answered in an adopted pane while the run settled (their number is printed with
   * the run): the session and when Enter was sent (a tool allowed there runs after it). */
  readonly deskAnswers: { sessionId: string; at: number }[] = [];

  /**
   * A closed (or waiting) session of the run whose native id no process holds; when none is closed
   * yet, the user closes a Ready one first (provoked, like the other aimed faults).
   */
  async closedTarget(
    states: readonly DeskState[] = DESK_TARGETS,
    provokeNew = false,
  ): Promise<{ id: string; executor: string; nativeSessionId: string | null; folder: string } | null> {
    const { sys, rng } = this;
    // A take-over needs a conversation to resume: a session that never answered a message has no
    // journal (or one without a turn), and `--resume` on it ends at once (most of the misses of the
    // first smoke batches). Only sessions with an answered message are taken then.
    const answered = provokeNew ? { messages: { some: { status: 'completed' as const } } } : {};
    // A session another desk fault is at already is left alone (two desk faults may run at once).
    const closed = () =>
      sys.db.session.findMany({
        where: {
          id: { in: this.user!.sessions.map((x) => x.id).filter((i) => !this.deskBusy.has(i)) },
          state: { in: [...states] },
          nativeSessionId: { not: null },
          ...answered,
        },
        select: { id: true, executor: true, nativeSessionId: true, folder: true },
      });
    let rows = await closed();
    if (rows.length === 0) {
      // None closed yet: the user closes an open one first (a running one closes after its turn);
      // with none open, a take-over's user makes one with a conversation first (a journal to resume).
      let open = await sys.db.session.findMany({
        where: { id: { in: this.user!.sessions.map((x) => x.id).filter((i) => !this.deskBusy.has(i)) }, state: { in: ['Ready', 'Running'] }, ...answered },
        select: { id: true },
      });
      if (open.length === 0 && provokeNew) open = (await this.conversation()) ?? [];
      if (open.length === 0) return null;
      const one = rng.pick(open);
      await this.user!.call('close', () => sys.services.close(one.id));
      rows = (await waitFor(45_000, 200, async () => ((await closed()).length ? closed() : null))) ?? [];
    }
    if (rows.length === 0) return null;
    const t = rng.pick(rows);
    const held = await scanHolders({ claudeHome: claudeConfigDir(sys.cliEnv), briaServerPid: null });
    if (held.some((h) => h.nativeId === t.nativeSessionId) || this.deskBusy.has(t.id)) return null;
    this.deskBusy.add(t.id);
    return t;
  }

  /** A new session with one answered message (so its CLI wrote a journal); null when it did not get there in time. */
  private async conversation(): Promise<{ id: string }[] | null> {
    const s = await this.user!.create(this.rng.pick(['claude', 'codex'] as const));
    if (!s) return null;
    const text = await this.user!.sendOne(s);
    const done = await waitFor(60_000, 300, () =>
      this.sys.db.message.findFirst({ where: { sessionId: s.id, text, status: 'completed' }, select: { id: true } }),
    );
    return done ? [{ id: s.id }] : null;
  }

  /**
   * A desk CLI on a closed session's id, then the user's "Continue here" (take-over) or "Adopt in
   * place" on it, raced by a Resume, the same request again, or the terminal closing at that moment.
   * Bria must end up with exactly one CLI on the id (the run's sampler watches), the session at rest.
   */
  async deskTakeover(target: { id: string; executor: string; nativeSessionId: string; folder: string }): Promise<void> {
    const { sys, rng } = this;
    const socket = `desk-${randomUUID().slice(0, 8)}`;
    this.desks.add(socket);
    let keep = false;
    const how = rng.pick(['continue', 'adopt'] as const);
    const racer = rng.pick(['resume', 'again', 'desk_close', 'none'] as const);
    const tally = (outcome: string) => {
      const k = `${how}+${racer}:${outcome}`;
      this.takeovers[k] = (this.takeovers[k] ?? 0) + 1;
    };
    try {
      await startDesk({ executor: target.executor as 'claude' | 'codex', folder: target.folder, env: sys.cliEnv, resumeId: target.nativeSessionId, socket });
      // The agent's desk scan reports the CLI; the session row then names it (handoff `desk`).
      const seen = await waitFor(40_000, 200, () =>
        sys.db.session.findFirst({ where: { id: target.id, handoff: 'desk', deskPid: { not: null } }, select: { deskPid: true } }),
      );
      if (!seen?.deskPid) {
        const now = await sys.db.session.findUnique({ where: { id: target.id }, select: { state: true, handoff: true } }).catch(() => null);
        return tally(`desk_not_seen(${now?.state}/${now?.handoff})`);
      }
      const pid = seen.deskPid;
      const text = rng.chance(0.5) ? this.user?.nextText() : undefined;
      const ask = () =>
        how === 'continue'
          ? continueHere(sys.deps, { sessionId: target.id, pid, source: 'web', ...(text ? { text } : {}) })
          : adoptInPlace(sys.deps, { sessionId: target.id, pid, source: 'web', ...(text ? { text } : {}) });
      const race = async () => {
        if (racer === 'resume') await sys.services.resume(target.id);
        else if (racer === 'again') await ask();
        else if (racer === 'desk_close') endDesk(socket);
      };
      const [first] = await Promise.allSettled([ask(), race()]);
      const ok = first.status === 'fulfilled';
      if (text) this.user?.sent.push({ text, sessionId: target.id, via: 'web', outcome: ok ? 'accepted' : 'uncertain' });
      tally(ok ? 'accepted' : 'refused');
      // An adopted CLI lives on in the person's terminal, now Bria's: it stays open until the run ends.
      keep = ok && how === 'adopt' && racer !== 'desk_close';
      await sleep(rng.int(1000, 6000));
    } catch (err) {
      // What the person's terminal showed (a CLI that never reached its prompt says why on its screen).
      const screen = deskScreen(socket);
      tally(`desk_failed(${target.executor}: ${(err as Error).message.slice(0, 40)} | ${screen})`);
    } finally {
      if (!keep) {
        endDesk(socket);
        this.desks.delete(socket);
      }
    }
  }

  /**
   * A message scheduled 0.3–2 s ahead, then the hub (with its engine) or Postgres taken away past
   * its due time. It must fire exactly once after healing: never twice, never lost.
   */
  async scheduleOutage(s: TrackedSession): Promise<void> {
    const { sys, rng } = this;
    const text = `sched-outage ${this.user!.nextText()}`;
    const runAt = new Date(Date.now() + rng.int(300, 2000));
    const outage = rng.pick(['hub_kill', 'pg_restart'] as const);
    const made = await createSchedule({ db: sys.db }, { sessionId: s.id, text, kind: 'once', runAt, timeZone: 'UTC', from: 'web' }).catch(() => null);
    if (!made) return;
    this.schedules.push({ id: made.id, outage, dueAt: runAt.getTime() });
    this.user!.sent.push({ text, sessionId: s.id, via: 'web', outcome: 'uncertain' });
    if (outage === 'hub_kill') {
      await sys.killHub();
      await sleep(rng.int(2500, 6000));
      await sys.startHub();
    } else {
      await sleep(Math.max(0, runAt.getTime() - Date.now() - 200));
      await sys.cluster.restart(rng.int(2000, 5000));
    }
  }

  /**
   * Two devices get a test push at once: one whose push service answers 410 (gone), 500 twice, or
   * never (the sender's 10 s timeout), and a healthy one. No crash; a 410 device is removed, the
   * others kept; the healthy device's push goes out without waiting for the failing one.
   */
  async pushFail(): Promise<void> {
    const { sys, rng } = this;
    const mode = rng.pick(['gone', 'error', 'timeout'] as const);
    const n = ++this.devices;
    const bad = `bad-${n}`;
    const ok = `ok-${n}`;
    sys.pushes.answer(bad, mode === 'gone' ? [410] : mode === 'error' ? [500, 500] : [HANG]);
    const subscribe = (name: string) =>
      subscribePush({ db: sys.db }, { userId: sys.userId, subscription: { endpoint: sys.pushes.endpoint(name), keys: browserKeys().keys }, name });
    const devices = await Promise.all([subscribe(bad), subscribe(ok)]).catch(() => null);
    if (!devices) return;
    const [b, o] = devices;
    const at = Date.now();
    const before = this.disruptions();
    const sent = await Promise.allSettled([
      sendTestPush({ db: sys.db }, { userId: sys.userId, id: b.id, waitMs: 0 }),
      sendTestPush({ db: sys.db }, { userId: sys.userId, id: o.id, waitMs: 0 }),
    ]);
    if (sent.some((r) => r.status === 'rejected')) return;
    await sleep(12_000);
    this.pushes.push({ mode, badId: b.id, okId: o.id, bad, ok, enqueuedAt: at, disrupted: this.disruptions() !== before });
  }

  /**
   * Forged and oversized lines into the agent's hook socket, from a process outside every CLI's
   * tree: a permission request for one of the run's sessions (a command naming a unique file), a
   * 1.2 MB line, broken JSON. Each must be refused with a reason; no prompt appears; the agent
   * process and its connection to the hub stay as they were.
   */
  async hookForge(target: TrackedSession): Promise<void> {
    const { sys, rng } = this;
    const token = `forged-${randomUUID().slice(0, 8)}`;
    const node = () => sys.db.node.findUnique({ where: { id: sys.nodeId }, select: { connectedAt: true } }).catch(() => null);
    const host = await sys.db.session
      .findUnique({ where: { id: target.id }, select: { identity: true } })
      .then((s) => (s?.identity as { host?: { cliPid?: number } } | null)?.host?.cliPid ?? process.pid)
      .catch(() => process.pid);
    const lines: Record<string, string | Buffer> = {
      forged_prompt: `${JSON.stringify({
        type: 'permission_request',
        sessionId: target.id,
        executor: target.executor,
        hookPid: host,
        hookKey: randomUUID(),
        request: { hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: `touch ${token}` } },
      })}\n`,
      oversized: Buffer.alloc(Math.round(1.2 * 1024 * 1024), 0x61),
      garbage: '{"type": "permission_request", sessionId: nope\n',
    };
    const which = rng.pick(Object.keys(lines));
    const hubLog = path.join(path.dirname(sys.finalSaveFile), 'hub.log');
    const logFrom = fileSize(hubLog);
    const before = { pid: sys.agentPid, connectedAt: (await node())?.connectedAt?.getTime() ?? null, disruptions: this.disruptions() };
    const answer = await forge(path.join(sys.agentDir, 'hooks', 'agent.sock'), lines[which]!);
    // A reconnect caused by the input would show within the heartbeat (500 ms) and the hub's reading of it.
    await sleep(2000);
    const after = { pid: sys.agentPid, connectedAt: (await node())?.connectedAt?.getTime() ?? null, disruptions: this.disruptions() };
    this.forges.push({ kind: which, token, sessionId: target.id, answer, before, after, hubSaid: hubWarnings(hubLog, logFrom) });
  }
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The hub's warnings (message and numbers) written to `file` since byte `from`. */
function hubWarnings(file: string, from: number): string[] {
  try {
    return readFileSync(file)
      .subarray(from)
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const o = JSON.parse(l) as Record<string, unknown>;
        const nums = Object.entries(o).filter(([k, v]) => typeof v === 'number' && !['level', 'time', 'pid'].includes(k));
        return [o.msg, ...nums.map(([k, v]) => `${k}=${v}`)].join(' ');
      });
  } catch {
    return [];
  }
}

/** Writes `payload` into a hook socket; what the agent answered before it ended the connection, or null when nothing listened. */
function forge(socket: string, payload: string | Buffer): Promise<string | null> {
  return new Promise((resolve) => {
    const s = connect(socket);
    let got = '';
    let connected = false;
    s.setEncoding('utf8');
    s.setTimeout(15_000, () => s.destroy());
    s.on('data', (c: string) => {
      got += c;
    });
    s.on('error', () => resolve(connected ? got : null));
    s.on('close', () => resolve(connected ? got : null));
    s.on('connect', () => {
      connected = true;
      s.write(payload);
    });
  });
}

/** The hand-over round's invariants over the run's records, read from the database and the push service's log. */
export async function checkEdgeFaults(sys: ChaosSystem, edge: EdgeFaults): Promise<string[]> {
  const v: string[] = [...sys.crashes];
  const subs = await sys.db.pushSubscription.findMany({ select: { id: true } });
  const okSentAt = new Map<string, number | null>();
  for (const r of edge.pushes) {
    const row = await sys.db.pushOutbox.findFirst({ where: { dedupeKey: { startsWith: `test:${r.okId}:` } }, select: { status: true, sentAt: true } });
    okSentAt.set(r.okId, row?.status === 'sent' && row.sentAt ? row.sentAt.getTime() : null);
  }
  v.push(...pushViolations(edge.pushes, { subscribed: new Set(subs.map((s) => s.id)), okSentAt, requests: (name) => sys.pushes.to(name).length }));
  const prompts = await sys.db.permissionPrompt.findMany({ select: { toolInput: true } });
  const inputs = prompts.map((p) => JSON.stringify(p.toolInput));
  v.push(...forgeViolations(edge.forges, (token) => inputs.filter((i) => i.includes(token)).length));
  return v;
}

/** The last non-empty lines of a desk terminal, shortened (for a take-over whose desk CLI did not start). */
function deskScreen(socket: string): string {
  try {
    const text = execFileSync('tmux', ['-L', socket, 'capture-pane', '-p', '-t', 'desk'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, TMUX: '' },
    });
    return text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .slice(-3)
      .join(' / ')
      .slice(0, 160);
  } catch {
    return 'no screen';
  }
}
