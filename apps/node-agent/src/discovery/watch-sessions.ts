import { EventEmitter } from 'node:events';
import { type FSWatcher, watch } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { DiscoveryIndex } from './discovery-index.ts';
import { classifyJournal } from './list-journals.ts';
import type { DiscoveredSession, ScanResult, ScanStats } from './session-types.ts';

// Keeps a session list current: inotify (via fs.watch) on every journal directory triggers a
// debounced re-check of just the files it named (a full scan when it named something else, such
// as a new directory), and a slow timer re-scans everything anyway because watches miss events
// (directories created between scans, network file systems, overflowed queues).

export interface SessionDiff {
  added: DiscoveredSession[];
  changed: DiscoveredSession[];
  removed: DiscoveredSession[];
  /** The scan that found the difference (`filesSeen` is small when only named files were checked). */
  stats: ScanStats;
}

export interface WatchOptions {
  debounceMs?: number;
  safetyScanMs?: number;
  /** The state file is rewritten at most this often (and on close); losing it costs only a re-read. */
  saveEveryMs?: number;
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
  private pending = new Set<string>();
  private full = false;
  private lastSave = 0;
  /** Resolves after the first scan; its sessions are the starting point, not `added` events. */
  readonly ready: Promise<ScanResult>;

  constructor(
    private readonly index: DiscoveryIndex,
    private readonly options: WatchOptions = {},
  ) {
    super();
    this.ready = this.rescan(false, null);
    this.safety = setInterval(() => {
      this.full = true;
      this.schedule(0);
    }, options.safetyScanMs ?? 60_000);
    this.safety.unref();
  }

  sessions(): DiscoveredSession[] {
    return [...this.known.values()];
  }

  close(): void {
    if (!this.closed) this.index.save();
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
        const paths = this.full ? null : [...this.pending];
        this.full = false;
        this.pending.clear();
        await this.rescan(true, paths);
      } while (this.again && !this.closed);
    } finally {
      this.scanning = false;
    }
  }

  /** Watch event in `dir`: remember what to re-check, or that only a full scan will do. */
  private changed(dir: string, name: string | Buffer | null): void {
    const { claudeHome, codexHome } = this.index;
    const path = name === null ? null : join(dir, name.toString());
    if (path === null) {
      this.full = true;
    } else if (dir === claudeHome || dir === codexHome) {
      // The homes also hold logs and databases that change all the time; only these matter.
      if (codexHome && path === join(codexHome, 'session_index.jsonl')) this.pending.add(path);
      else if (name === 'projects' || name === 'sessions') this.full = true;
      else return;
    } else if (classifyJournal(claudeHome, codexHome, path)) {
      this.pending.add(path);
    } else if (isLeaf(dir, claudeHome, codexHome)) {
      // Project and day directories hold nothing else discovery reads; the live registry needs
      // no file work at all because every result re-reads it.
    } else {
      this.full = true;
    }
    this.schedule();
  }

  private async rescan(emit: boolean, paths: string[] | null): Promise<ScanResult> {
    const result = paths ? await this.index.scanPaths(paths) : await this.index.scan();
    if (this.closed) return result;
    if (Date.now() - this.lastSave >= (this.options.saveEveryMs ?? 30_000)) {
      this.index.save();
      this.lastSave = Date.now();
    }
    const next = new Map(result.sessions.map((s) => [`${s.executor}:${s.file}`, s]));
    const diff: SessionDiff = { added: [], changed: [], removed: [], stats: result.stats };
    for (const [key, s] of next) {
      const before = this.known.get(key);
      if (!before) diff.added.push(s);
      else if (before !== s && JSON.stringify(before) !== JSON.stringify(s)) diff.changed.push(s);
    }
    for (const [key, s] of this.known) if (!next.has(key)) diff.removed.push(s);
    this.known = next;
    if (!paths) this.syncWatches();
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
        const w = watch(dir, { persistent: false }, (_event, name) => this.changed(dir, name));
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

/** A Claude project dir, the Claude live registry, or a Codex day dir. */
function isLeaf(dir: string, claudeHome: string | null, codexHome: string | null): boolean {
  if (claudeHome) {
    if (dir === join(claudeHome, 'sessions')) return true;
    const rel = relative(join(claudeHome, 'projects'), dir);
    if (rel && !rel.startsWith('..') && !rel.includes(sep)) return true;
  }
  if (codexHome) {
    const rel = relative(join(codexHome, 'sessions'), dir);
    if (!rel.startsWith('..') && rel.split(sep).length === 3) return true;
  }
  return false;
}

export function watchSessions(index: DiscoveryIndex, options?: WatchOptions): SessionWatcher {
  return new SessionWatcher(index, options);
}
