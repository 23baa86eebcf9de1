import path from 'node:path';
import { MAX_FRAME_BYTES, type SessionEventInput } from '@bria/core/protocol';
import { DiscoveryIndex, type DiscoveredSession, type SessionWatcher } from '../discovery/index.ts';

/** A `discovery_diff` payload, as the protocol types it. */
export type WireDiff = SessionEventInput<'discovery_diff'>;
type Diff<A = unknown, R = unknown> = { added: A[]; changed: A[]; removed: R[] };

// A frame also carries its envelope; half the limit leaves ample room for it and for JSON escaping.
const CHUNK_BYTES = Math.floor(MAX_FRAME_BYTES / 2);
const CHUNK_ITEMS = 1000;

const time = (s: string | null) => {
  const t = s ? Date.parse(s) : Number.NaN;
  return Number.isFinite(t) ? t : undefined;
};

/** One native session as the hub stores it (the index already clipped prompts and titles). */
export function toWire(s: DiscoveredSession): WireDiff['added'][number] {
  return {
    executor: s.executor, nativeSessionId: s.nativeId, folder: s.cwd ?? '',
    ...(s.title ? { title: s.title.slice(0, 500) } : {}),
    ...(s.firstPrompt ? { firstPrompt: s.firstPrompt.slice(0, 2000) } : {}),
    journalPath: s.file, startedAt: time(s.startedAt), lastActivityAt: time(s.lastActivityAt), userTurns: s.userTurns,
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

/**
 * Keeps the hub's archive of native sessions on this node current: the whole list on the agent's
 * first connection (and on a `discover` command), then only what changed. Reads the CLIs' journals;
 * copies nothing of other apps' data.
 */
export class DiscoveryFeed {
  private readonly index: DiscoveryIndex;
  private watcher: SessionWatcher | null = null;

  constructor(o: { claudeHome: string | null; codexHome: string | null; stateDir: string }, private readonly emit: (payload: WireDiff) => void) {
    this.index = new DiscoveryIndex({ claudeHome: o.claudeHome, codexHome: o.codexHome, stateDir: path.join(o.stateDir, 'discovery') });
  }

  /** Full list as `added` (the hub ignores what it already knows), then incremental diffs. */
  async start(): Promise<number> {
    if (this.watcher) return this.sendAll();
    this.watcher = this.index.watch({ debounceMs: 150, safetyScanMs: 60_000, saveEveryMs: 30_000 });
    this.watcher.on('diff', (d) => this.send({ added: d.added.filter(reportable).map(toWire), changed: d.changed.filter(reportable).map(toWire), removed: d.removed.map((s) => ({ executor: s.executor, nativeSessionId: s.nativeId })) }));
    this.watcher.on('error', () => undefined);
    const first = await this.watcher.ready;
    // Journals deleted while the agent was down were never seen going: reported against what the
    // last run's state file knew.
    const removed = this.index.takeGoneSinceLastRun(first.sessions).map((g) => ({ executor: g.executor, nativeSessionId: g.nativeId }));
    const found = first.sessions.filter(reportable);
    this.send({ added: found.map(toWire), changed: [], removed });
    return found.length;
  }

  async sendAll(): Promise<number> {
    const found = (await this.index.scan()).sessions.filter(reportable);
    this.send({ added: found.map(toWire), changed: [], removed: [] });
    return found.length;
  }

  private send(diff: WireDiff): void {
    for (const chunk of chunkDiff(diff)) this.emit(chunk);
  }

  close(): void {
    this.watcher?.close();
    this.index.save();
  }
}
