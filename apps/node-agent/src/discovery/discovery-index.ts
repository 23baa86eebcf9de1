import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { claudeLineSink, emptyClaudeFields } from './claude-journal.ts';
import { liveClaudeSessions } from './claude-live.ts';
import { codexLineSink, emptyCodexFields } from './codex-rollout.ts';
import { refreshCodexTitles } from './codex-titles.ts';
import { emptyState, type FileEntry, type IndexState, loadState, saveState } from './index-state.ts';
import { classifyJournal, type JournalFile, listJournals, statJournal } from './list-journals.ts';
import { scanLines } from './line-scanner.ts';
import type { DiscoveredSession, FileProblems, ScanResult } from './session-types.ts';
import { toSession } from './session-view.ts';
import { SessionWatcher, type WatchOptions } from './watch-sessions.ts';

export interface DiscoveryIndexOptions {
  /** The Claude config dir (usually `~/.claude`); null to skip Claude. */
  claudeHome: string | null;
  /** `$CODEX_HOME` (usually `~/.codex`); null to skip Codex. */
  codexHome: string | null;
  /** Where the small state file lives; without it the index lives in memory only. */
  stateDir?: string | null;
  /** Lines longer than this are skipped (and counted), never held in memory. */
  maxLineBytes?: number;
}

const DEFAULT_MAX_LINE = 8 << 20;
// Keep the agent's event loop responsive during a first scan of gigabytes of journals.
const YIELD_EVERY_MS = 20;

interface Tally {
  filesSeen: number;
  filesRead: number;
  bytesRead: number;
}

/**
 * Incremental index of native sessions. A scan stats every journal and reads only the bytes
 * appended since the previous scan (the whole file only when it is new, replaced or truncated);
 * `scanPaths` does the same for a few known paths, for watchers that know what changed.
 */
export class DiscoveryIndex {
  readonly claudeHome: string | null;
  readonly codexHome: string | null;
  readonly stateDir: string | null;
  readonly maxLineBytes: number;
  /** Journal bytes read since this index was opened; lets callers check incrementality. */
  bytesReadTotal = 0;
  /** Directories the last full scan looked into, for watchers. */
  watchedDirs: string[] = [];
  private state: IndexState;
  private dirty = false;
  // Session objects are rebuilt only for journals that changed, so an idle re-scan allocates
  // almost nothing and watchers can compare by identity.
  private readonly views = new Map<string, DiscoveredSession | null>();
  /** Journals the state file knew when this index was opened (what an earlier run reported). */
  private readonly loaded = new Map<string, { executor: FileEntry['executor']; nativeId: string }>();
  private gone: { executor: FileEntry['executor']; nativeId: string }[] = [];
  private running: Promise<ScanResult> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: DiscoveryIndexOptions) {
    this.claudeHome = options.claudeHome;
    this.codexHome = options.codexHome;
    this.stateDir = options.stateDir ?? null;
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE;
    this.state = this.stateDir ? loadState(this.stateDir, this.claudeHome, this.codexHome) : emptyState(this.claudeHome, this.codexHome);
    for (const [file, e] of Object.entries(this.state.files)) this.loaded.set(file, { executor: e.executor, nativeId: e.nativeId });
  }

  /**
   * Sessions an earlier run knew whose journals were found gone (deleted while the agent was down),
   * once each; the caller reports them as `removed`, since no watcher saw them go.
   */
  takeGoneSinceLastRun(current: readonly DiscoveredSession[]): { executor: FileEntry['executor']; nativeId: string }[] {
    const still = new Set(current.map((s) => `${s.executor}:${s.nativeId}`));
    const out = this.gone.filter((g) => !still.has(`${g.executor}:${g.nativeId}`));
    this.gone = [];
    return out;
  }

  /** Full scan; concurrent callers share one running scan. */
  scan(): Promise<ScanResult> {
    if (!this.running) {
      this.running = this.enqueue(() => this.scanAll()).finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  /** Re-checks only these paths (journals or the Codex title index); others are ignored. */
  scanPaths(paths: Iterable<string>): Promise<ScanResult> {
    const list = [...paths];
    return this.enqueue(() => this.scanSome(list));
  }

  /** Keeps this index current from file-system events; emits `added`/`changed`/`removed`. */
  watch(options?: WatchOptions): SessionWatcher {
    return new SessionWatcher(this, options);
  }

  /** Writes the state file if anything changed since the last save. */
  save(): boolean {
    if (!this.stateDir || !this.dirty) return false;
    saveState(this.stateDir, this.state);
    this.dirty = false;
    return true;
  }

  private enqueue(run: () => Promise<ScanResult>): Promise<ScanResult> {
    const next = this.queue.then(run);
    this.queue = next.catch(() => {});
    return next;
  }

  private async scanAll(): Promise<ScanResult> {
    const started = performance.now();
    let sliceStart = started;
    const pause = () => {
      if (performance.now() - sliceStart < YIELD_EVERY_MS) return undefined;
      return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        sliceStart = performance.now();
      });
    };
    const listing = await listJournals(this.claudeHome, this.codexHome, pause);
    this.watchedDirs = listing.dirs;
    const tally: Tally = { filesSeen: listing.files.length, filesRead: 0, bytesRead: 0 };
    const seen = new Set<string>();
    for (const jf of listing.files) {
      seen.add(jf.file);
      this.refresh(jf, tally);
      await pause();
    }
    for (const file of Object.keys(this.state.files)) if (!seen.has(file)) this.forget(file);
    this.refreshTitles(tally);
    return this.result(started, tally);
  }

  private async scanSome(paths: string[]): Promise<ScanResult> {
    const started = performance.now();
    const tally: Tally = { filesSeen: 0, filesRead: 0, bytesRead: 0 };
    for (const file of new Set(paths)) {
      const kind = classifyJournal(this.claudeHome, this.codexHome, file);
      if (!kind) continue;
      const jf = statJournal(kind.executor, kind.nativeId, file);
      if (jf) {
        tally.filesSeen++;
        this.refresh(jf, tally);
      } else {
        this.forget(file);
      }
    }
    if (this.codexHome && paths.includes(join(this.codexHome, 'session_index.jsonl'))) this.refreshTitles(tally);
    return this.result(started, tally);
  }

  private result(started: number, tally: Tally): ScanResult {
    this.bytesReadTotal += tally.bytesRead;
    const live = this.claudeHome ? liveClaudeSessions(this.claudeHome) : new Set<string>();
    return { sessions: this.sessions(live), problems: this.problems(), stats: { ...tally, durationMs: performance.now() - started } };
  }

  private forget(file: string): void {
    const was = this.loaded.get(file);
    if (was) {
      this.loaded.delete(file);
      this.gone.push(was);
    }
    if (!(file in this.state.files)) return;
    delete this.state.files[file];
    this.views.delete(file);
    this.dirty = true;
  }

  private refreshTitles(tally: Tally): void {
    if (!this.codexHome) return;
    const titles = refreshCodexTitles(this.codexHome, this.state.codexTitles, this.maxLineBytes);
    tally.bytesRead += titles.bytesRead;
    if (!titles.changed) return;
    this.dirty = true;
    for (const [file, view] of this.views) if (view?.executor === 'codex') this.views.delete(file);
  }

  /** Reads what is new in one journal, if it changed since it was last read. */
  private refresh(jf: JournalFile, tally: Tally): void {
    const known = this.state.files[jf.file];
    if (known && known.ino === jf.ino && known.size === jf.size && known.mtimeMs === jf.mtimeMs) return;
    this.dirty = true;
    this.views.delete(jf.file);
    tally.filesRead++;
    let fd: number;
    try {
      fd = openSync(jf.file, 'r');
    } catch (error) {
      const e = known ?? freshEntry(jf);
      this.state.files[jf.file] = e;
      Object.assign(e, { size: jf.size, mtimeMs: jf.mtimeMs, unreadable: (error as NodeJS.ErrnoException).code ?? 'EIO' });
      return;
    }
    try {
      // Continue where the last read stopped only if that is still the same file with the same
      // bytes before the offset; a file rewritten in place (even to a larger size) is read anew.
      const e =
        known && known.ino === jf.ino && known.executor === jf.executor && jf.size >= known.offset && known.tailCheck === tailCheck(fd, known.offset)
          ? known
          : freshEntry(jf);
      this.state.files[jf.file] = e;
      const malformed = () => {
        e.malformed++;
      };
      const sink = e.fields.kind === 'claude' ? claudeLineSink(e.fields, malformed) : codexLineSink(e.fields, malformed);
      // The stat taken before reading is recorded: bytes appended meanwhile make the next scan look again.
      e.size = jf.size;
      e.mtimeMs = jf.mtimeMs;
      try {
        const result = scanLines(fd, e.offset, this.maxLineBytes, sink);
        e.offset = result.consumedTo;
        e.tailCheck = tailCheck(fd, e.offset);
        e.huge += result.hugeLines;
        e.partialTail = result.partialTail;
        e.unreadable = null;
        tally.bytesRead += result.bytesRead;
      } catch (error) {
        e.unreadable = (error as NodeJS.ErrnoException).code ?? 'EIO';
      }
    } finally {
      closeSync(fd);
    }
  }

  private sessions(live: Set<string>): DiscoveredSession[] {
    const out: DiscoveredSession[] = [];
    for (const file in this.state.files) {
      const e = this.state.files[file] as FileEntry;
      let s = this.views.get(file);
      if (s === undefined || (s?.executor === 'claude' && s.live !== live.has(e.nativeId))) {
        s = toSession(file, e, live, this.state.codexTitles.titles);
        this.views.set(file, s);
      }
      if (s) out.push(s);
    }
    // Newest first; ISO timestamps compare as strings.
    return out.sort((a, b) => {
      const x = a.lastActivityAt ?? '';
      const y = b.lastActivityAt ?? '';
      return x < y ? 1 : x > y ? -1 : 0;
    });
  }

  private problems(): FileProblems[] {
    const out: FileProblems[] = [];
    for (const file in this.state.files) {
      const e = this.state.files[file] as FileEntry;
      if (e.malformed > 0 || e.huge > 0 || e.partialTail || e.unreadable) {
        out.push({ file, malformedLines: e.malformed, hugeLines: e.huge, partialTail: e.partialTail, unreadable: e.unreadable });
      }
    }
    return out;
  }
}

const CHECK_BYTES = 32;

/** The bytes just before `offset`, to recognise a file that was rewritten rather than appended to. */
function tailCheck(fd: number, offset: number): string {
  const n = Math.min(CHECK_BYTES, offset);
  if (n === 0) return '';
  const b = Buffer.alloc(n);
  const got = readSync(fd, b, 0, n, offset - n);
  return b.subarray(0, got).toString('base64');
}

function freshEntry(jf: JournalFile): FileEntry {
  return {
    executor: jf.executor,
    nativeId: jf.nativeId,
    size: -1,
    mtimeMs: -1,
    ino: jf.ino,
    offset: 0,
    tailCheck: '',
    malformed: 0,
    huge: 0,
    partialTail: false,
    unreadable: null,
    fields: jf.executor === 'claude' ? emptyClaudeFields() : emptyCodexFields(),
  };
}
