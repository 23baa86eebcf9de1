import { EventEmitter } from 'node:events';
import { type FSWatcher, watch } from 'node:fs';
import { join } from 'node:path';
import type { DiscoveryIndex } from './discovery-index.ts';
import type { DiscoveredSession, ScanResult } from './session-types.ts';

// Keeps a session list current: inotify (via fs.watch) on every journal directory triggers a
// debounced incremental scan, and a slow timer re-scans anyway because watches miss events
// (directories created between scans, network file systems, overflowed queues).

export interface SessionDiff {
  added: DiscoveredSession[];
  changed: DiscoveredSession[];
  removed: DiscoveredSession[];
}

export interface WatchOptions {
  debounceMs?: number;
  safetyScanMs?: number;
}

export interface SessionWatcherEvents {
  added: [DiscoveredSession];
  changed: [DiscoveredSession];
  removed: [DiscoveredSession];
  diff: [SessionDiff];
  error: [Error];
}

export class SessionWatcher extends EventEmitter<SessionWatcherEvents> {
  private readonly watchers = new Map<string, FSWatcher>();
  private known = new Map<string, DiscoveredSession>();
  private timer: NodeJS.Timeout | null = null;
  private safety: NodeJS.Timeout | null = null;
  private closed = false;
  private scanning = false;
  private again = false;
  /** Resolves after the first scan; its sessions are the starting point, not `added` events. */
  readonly ready: Promise<ScanResult>;

  constructor(
    private readonly index: DiscoveryIndex,
    private readonly options: WatchOptions = {},
  ) {
    super();
    this.ready = this.rescan(false);
    this.safety = setInterval(() => this.schedule(0), options.safetyScanMs ?? 60_000);
    this.safety.unref();
  }

  sessions(): DiscoveredSession[] {
    return [...this.known.values()];
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.safety) clearInterval(this.safety);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private schedule(delay = this.options.debounceMs ?? 150): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.rescanLoop().catch((error: unknown) => this.emit('error', error as Error));
    }, delay);
  }

  // A change seen during a scan may have been missed by it, so scan once more afterwards.
  private async rescanLoop(): Promise<void> {
    if (this.scanning) {
      this.again = true;
      return;
    }
    this.scanning = true;
    try {
      await this.ready;
      do {
        this.again = false;
        await this.rescan(true);
      } while (this.again && !this.closed);
    } finally {
      this.scanning = false;
    }
  }

  private async rescan(emit: boolean): Promise<ScanResult> {
    const result = await this.index.scan();
    if (this.closed) return result;
    this.index.save();
    const next = new Map(result.sessions.map((s) => [`${s.executor}:${s.file}`, s]));
    const diff: SessionDiff = { added: [], changed: [], removed: [] };
    for (const [key, s] of next) {
      const before = this.known.get(key);
      if (!before) diff.added.push(s);
      else if (before !== s && JSON.stringify(before) !== JSON.stringify(s)) diff.changed.push(s);
    }
    for (const [key, s] of this.known) if (!next.has(key)) diff.removed.push(s);
    this.known = next;
    this.syncWatches();
    if (emit && diff.added.length + diff.changed.length + diff.removed.length > 0) {
      for (const s of diff.added) this.emit('added', s);
      for (const s of diff.changed) this.emit('changed', s);
      for (const s of diff.removed) this.emit('removed', s);
      this.emit('diff', diff);
    }
    return result;
  }

  private syncWatches(): void {
    const wanted = new Set(this.index.watchedDirs);
    // The homes themselves catch `projects/`/`sessions/` appearing and the Codex title index;
    // Claude's live registry tells when a process takes or releases a session.
    for (const home of [this.index.claudeHome, this.index.codexHome]) if (home) wanted.add(home);
    if (this.index.claudeHome) wanted.add(join(this.index.claudeHome, 'sessions'));
    for (const [dir, w] of this.watchers) {
      if (!wanted.has(dir)) {
        w.close();
        this.watchers.delete(dir);
      }
    }
    for (const dir of wanted) {
      if (this.watchers.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: false }, () => this.schedule());
        w.on('error', () => {
          w.close();
          this.watchers.delete(dir);
        });
        this.watchers.set(dir, w);
      } catch {
        // Not there (yet); the safety scan will pick it up once it exists.
      }
    }
  }
}

export function watchSessions(index: DiscoveryIndex, options?: WatchOptions): SessionWatcher {
  return new SessionWatcher(index, options);
}
