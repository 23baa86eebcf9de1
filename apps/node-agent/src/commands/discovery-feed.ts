import path from 'node:path';
import { type DeskHolder, MAX_FRAME_BYTES, type SessionEventInput } from '@bria/core/protocol';
import { procStat, sameStart } from '../executors/process-table.ts';
import { DiscoveryIndex, type DiscoveredSession, type SessionWatcher } from '../discovery/index.ts';

/** A `discovery_diff` payload, as the protocol types it. */
export type WireDiff = SessionEventInput<'discovery_diff'>;
type Diff<A = unknown, R = unknown> = { added: A[]; changed: A[]; removed: R[] };

// A frame also carries its envelope; half the limit leaves ample room for it and for JSON escaping.
const CHUNK_BYTES = Math.floor(MAX_FRAME_BYTES / 2);
const CHUNK_ITEMS = 1000;
/** How often the process table is looked at for CLIs started or ended outside Bria. */
export const HOLDER_LOOK_MS = 2_000;

const time = (s: string | null) => {
  const t = s ? Date.parse(s) : Number.NaN;
  return Number.isFinite(t) ? t : undefined;
};

/** One native session as the hub stores it (the index already clipped prompts and titles). */
export function toWire(s: DiscoveredSession, outside?: DeskHolder | null): WireDiff['added'][number] {
  return {
    ...(outside === undefined ? {} : { outside }),
    executor: s.executor,
    nativeSessionId: s.nativeId,
    folder: s.cwd ?? '',
    ...(s.title ? { title: s.title.slice(0, 500) } : {}),
    ...(s.firstPrompt ? { firstPrompt: s.firstPrompt.slice(0, 2000) } : {}),
    journalPath: s.file,
    startedAt: time(s.startedAt),
    lastActivityAt: time(s.lastActivityAt),
    userTurns: s.userTurns,
  };
}

/**
 * A journal is reported only once it names its folder: the CLI creates the file before the first
 * record that carries `cwd` (`claude -p` starts with `queue-operation` lines), and a session without
 * its folder cannot be resumed. The watcher reports the same session as `changed` when the folder
 * appears, which the hub enters like `added`.
 */
export const reportable = (s: DiscoveredSession): boolean => s.cwd !== null && s.cwd !== '';

/** Splits a diff into pieces whose JSON stays well under the frame limit. */
export function chunkDiff<A, R>(diff: Diff<A, R>): Diff<A, R>[] {
  const out: Diff<A, R>[] = [];
  let cur: Diff<A, R> = { added: [], changed: [], removed: [] };
  let bytes = 0;
  const push = <K extends keyof Diff<A, R>>(key: K, item: Diff<A, R>[K][number]) => {
    const size = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (bytes + size > CHUNK_BYTES || cur[key].length >= CHUNK_ITEMS) {
      out.push(cur);
      cur = { added: [], changed: [], removed: [] };
      bytes = 0;
    }
    (cur[key] as Diff<A, R>[K][number][]).push(item);
    bytes += size;
  };
  for (const item of diff.added) push('added', item);
  for (const item of diff.changed) push('changed', item);
  for (const item of diff.removed) push('removed', item);
  if (cur.added.length + cur.changed.length + cur.removed.length > 0) out.push(cur);
  return out;
}

/** Every process outside Bria's tmux that holds a native session now (handoff/native-holders.ts). */
export type HolderLook = () => Promise<DeskHolderOf[]>;
export interface DeskHolderOf {
  executor: 'claude' | 'codex';
  nativeId: string;
  holder: DeskHolder;
}

const keyOf = (executor: string, nativeId: string) => `${executor}:${nativeId.toLowerCase()}`;
const sameHolder = (a: DeskHolder | undefined, b: DeskHolder | undefined) => a?.pid === b?.pid && a?.startTime === b?.startTime;

/**
 * Keeps the hub's archive of native sessions on this node current: the whole list on the agent's
 * first connection (and on a `discover` command), then only what changed. Reads the CLIs' journals;
 * copies nothing of other apps' data. With a holder look (`handoff`), each session also says which
 * process outside Bria holds it (`outside`, null when none): the look runs with every scan and every
 * `HOLDER_LOOK_MS`, so a CLI started or ended by hand at the computer is reported within that bound
 * even when it writes nothing.
 */
export class DiscoveryFeed {
  private readonly index: DiscoveryIndex;
  private watcher: SessionWatcher | null = null;
  private outside = new Map<string, DeskHolder>();
  private timer: NodeJS.Timeout | null = null;
  private looking: Promise<void> | null = null;

  constructor(
    o: { claudeHome: string | null; codexHome: string | null; stateDir: string },
    private readonly emit: (payload: WireDiff) => void,
    private readonly holders: HolderLook | null = null,
    private readonly lookEveryMs = HOLDER_LOOK_MS,
  ) {
    this.index = new DiscoveryIndex({ claudeHome: o.claudeHome, codexHome: o.codexHome, stateDir: path.join(o.stateDir, 'discovery') });
  }

  /** Full list as `added` (the hub ignores what it already knows), then incremental diffs. */
  async start(): Promise<number> {
    if (this.watcher) return this.sendAll();
    this.watcher = this.index.watch({ debounceMs: 150, safetyScanMs: 60_000, saveEveryMs: 30_000 });
    this.watcher.on('diff', (d) => {
      void this.look(false).then(() =>
        this.send({
          added: d.added.filter(reportable).map((s) => this.wire(s)),
          changed: d.changed.filter(reportable).map((s) => this.wire(s)),
          removed: d.removed.map((s) => ({ executor: s.executor, nativeSessionId: s.nativeId })),
        }),
      );
    });
    this.watcher.on('error', () => undefined);
    const first = await this.watcher.ready;
    await this.look(false);
    // Journals deleted while the agent was down were never seen going: reported against what the
    // last run's state file knew.
    const removed = this.index.takeGoneSinceLastRun(first.sessions).map((g) => ({ executor: g.executor, nativeSessionId: g.nativeId }));
    const found = first.sessions.filter(reportable);
    this.send({ added: found.map((s) => this.wire(s)), changed: [], removed });
    if (this.holders) {
      this.timer = setInterval(() => void this.look(true), this.lookEveryMs);
      this.timer.unref();
    }
    return found.length;
  }

  async sendAll(): Promise<number> {
    await this.look(false);
    const found = (await this.index.scan()).sessions.filter(reportable);
    this.send({ added: found.map((s) => this.wire(s)), changed: [], removed: [] });
    return found.length;
  }

  private wire(s: DiscoveredSession): WireDiff['added'][number] {
    return toWire(s, this.holders ? (this.outside.get(keyOf(s.executor, s.nativeId)) ?? null) : undefined);
  }

  /** One look at the process table; with `report`, sessions whose holder changed are sent as `changed`. */
  private look(report: boolean): Promise<void> {
    if (!this.holders) return Promise.resolve();
    if (this.looking) return this.looking;
    const holders = this.holders;
    this.looking = (async () => {
      let now: DeskHolderOf[];
      try {
        now = await holders();
      } catch {
        return; // cannot tell now: nothing changes, the next look tries again
      }
      const next = new Map(now.map((h) => [keyOf(h.executor, h.nativeId), h.holder]));
      // A holder leaves only with its process: Claude deletes its registry file while it shuts down,
      // before the process is gone. Until the pid (with its start) has ended, it still holds.
      for (const [k, h] of this.outside) if (!next.has(k) && (await this.stillRuns(h))) next.set(k, h);
      const moved = new Set<string>();
      for (const [k, h] of next) if (!sameHolder(this.outside.get(k), h)) moved.add(k);
      for (const k of this.outside.keys()) if (!next.has(k)) moved.add(k);
      this.outside = next;
      if (!report || moved.size === 0 || !this.watcher) return;
      const changed = this.watcher.sessions().filter((s) => reportable(s) && moved.has(keyOf(s.executor, s.nativeId)));
      if (changed.length > 0) this.send({ added: [], changed: changed.map((s) => this.wire(s)), removed: [] });
    })().finally(() => {
      this.looking = null;
    });
    return this.looking;
  }

  private async stillRuns(h: DeskHolder): Promise<boolean> {
    const st = await procStat(h.pid).catch(() => null);
    return st !== null && st.state !== 'Z' && st.state !== 'X' && sameStart(h.startTime, st.startTime) !== false;
  }

  private send(diff: WireDiff): void {
    for (const chunk of chunkDiff(diff)) this.emit(chunk);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.watcher?.close();
    this.index.save();
  }
}
