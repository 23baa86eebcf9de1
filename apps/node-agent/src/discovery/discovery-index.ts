import { closeSync, openSync } from 'node:fs';
import { claudeLineSink, claudeTitle, emptyClaudeFields } from './claude-journal.ts';
import { liveClaudeSessions } from './claude-live.ts';
import { codexLineSink, codexPrompts, emptyCodexFields } from './codex-rollout.ts';
import { refreshCodexTitles } from './codex-titles.ts';
import { emptyState, type FileEntry, type IndexState, loadState, saveState } from './index-state.ts';
import { type JournalFile, listJournals } from './list-journals.ts';
import { scanLines } from './line-scanner.ts';
import type { DiscoveredSession, FileProblems, ScanResult } from './session-types.ts';

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

/**
 * Incremental index of native sessions. A scan stats every journal and reads only the bytes
 * appended since the previous scan (the whole file only when it is new, replaced or truncated).
 */
export class DiscoveryIndex {
  readonly claudeHome: string | null;
  readonly codexHome: string | null;
  readonly stateDir: string | null;
  readonly maxLineBytes: number;
  /** Journal bytes read since this index was opened; lets callers check incrementality. */
  bytesReadTotal = 0;
  /** Directories the last scan looked into, for watchers. */
  watchedDirs: string[] = [];
  private state: IndexState;
  // Session objects are rebuilt only for journals that changed, so an idle re-scan allocates
  // almost nothing and watchers can compare by identity.
  private readonly views = new Map<string, DiscoveredSession | null>();
  private dirty = false;
  private running: Promise<ScanResult> | null = null;

  constructor(options: DiscoveryIndexOptions) {
    this.claudeHome = options.claudeHome;
    this.codexHome = options.codexHome;
    this.stateDir = options.stateDir ?? null;
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE;
    this.state = this.stateDir ? loadState(this.stateDir, this.claudeHome, this.codexHome) : emptyState(this.claudeHome, this.codexHome);
  }

  /** Scans now; concurrent callers share one running scan. */
  scan(): Promise<ScanResult> {
    if (this.running) return this.running;
    this.running = this.scanOnce().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Writes the state file if anything changed since the last save. */
  save(): boolean {
    if (!this.stateDir || !this.dirty) return false;
    saveState(this.stateDir, this.state);
    this.dirty = false;
    return true;
  }

  private async scanOnce(): Promise<ScanResult> {
    const started = performance.now();
    let sliceStart = started;
    let bytesRead = 0;
    let filesRead = 0;
    const listing = listJournals(this.claudeHome, this.codexHome);
    this.watchedDirs = listing.dirs;
    const seen = new Set<string>();
    for (const jf of listing.files) {
      seen.add(jf.file);
      const read = this.refresh(jf);
      if (read < 0) continue;
      filesRead++;
      bytesRead += read;
      if (performance.now() - sliceStart > YIELD_EVERY_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
    for (const file of Object.keys(this.state.files)) {
      if (!seen.has(file)) {
        delete this.state.files[file];
        this.views.delete(file);
        this.dirty = true;
      }
    }
    if (this.codexHome) {
      const titles = refreshCodexTitles(this.codexHome, this.state.codexTitles, this.maxLineBytes);
      bytesRead += titles.bytesRead;
      if (titles.changed) {
        this.dirty = true;
        for (const [file, view] of this.views) if (view?.executor === 'codex') this.views.delete(file);
      }
    }
    this.bytesReadTotal += bytesRead;
    const live = this.claudeHome ? liveClaudeSessions(this.claudeHome) : new Set<string>();
    return {
      sessions: this.sessions(live),
      problems: this.problems(),
      stats: { filesSeen: listing.files.length, filesRead, bytesRead, durationMs: performance.now() - started },
    };
  }

  /** Reads what is new in one journal; returns bytes read, or -1 when it was unchanged. */
  private refresh(jf: JournalFile): number {
    let entry = this.state.files[jf.file];
    if (entry && entry.ino === jf.ino && entry.size === jf.size && entry.mtimeMs === jf.mtimeMs) return -1;
    if (!entry || entry.ino !== jf.ino || jf.size < entry.offset || entry.executor !== jf.executor) {
      entry = freshEntry(jf);
      this.state.files[jf.file] = entry;
    }
    this.dirty = true;
    this.views.delete(jf.file);
    const e = entry;
    const malformed = () => {
      e.malformed++;
    };
    const sink = e.fields.kind === 'claude' ? claudeLineSink(e.fields, malformed) : codexLineSink(e.fields, malformed);
    let fd: number;
    try {
      fd = openSync(jf.file, 'r');
    } catch (error) {
      e.unreadable = (error as NodeJS.ErrnoException).code ?? 'EIO';
      Object.assign(e, { size: jf.size, mtimeMs: jf.mtimeMs });
      return 0;
    }
    try {
      const result = scanLines(fd, e.offset, this.maxLineBytes, sink);
      e.offset = result.consumedTo;
      e.huge += result.hugeLines;
      e.partialTail = result.partialTail;
      e.unreadable = null;
      // The stat taken before reading: bytes appended meanwhile make the next scan look again.
      e.size = jf.size;
      e.mtimeMs = jf.mtimeMs;
      return result.bytesRead;
    } catch (error) {
      e.unreadable = (error as NodeJS.ErrnoException).code ?? 'EIO';
      return 0;
    } finally {
      closeSync(fd);
    }
  }

  private sessions(live: Set<string>): DiscoveredSession[] {
    const out: DiscoveredSession[] = [];
    for (const [file, e] of Object.entries(this.state.files)) {
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
    for (const [file, e] of Object.entries(this.state.files)) {
      if (e.malformed > 0 || e.huge > 0 || e.partialTail || e.unreadable) {
        out.push({ file, malformedLines: e.malformed, hugeLines: e.huge, partialTail: e.partialTail, unreadable: e.unreadable });
      }
    }
    return out;
  }
}

function freshEntry(jf: JournalFile): FileEntry {
  return {
    executor: jf.executor,
    nativeId: jf.nativeId,
    size: -1,
    mtimeMs: -1,
    ino: jf.ino,
    offset: 0,
    malformed: 0,
    huge: 0,
    partialTail: false,
    unreadable: null,
    fields: jf.executor === 'claude' ? emptyClaudeFields() : emptyCodexFields(),
  };
}

function toSession(file: string, e: FileEntry, live: Set<string>, codexTitles: Record<string, string>): DiscoveredSession | null {
  const s = buildSession(file, e, live, codexTitles);
  return s && Object.freeze(s);
}

function buildSession(file: string, e: FileEntry, live: Set<string>, codexTitles: Record<string, string>): DiscoveredSession | null {
  if (e.unreadable && e.offset === 0) return null;
  const f = e.fields;
  if (f.kind === 'claude') {
    // Subagent transcripts are not sessions anyone can resume.
    if (f.sawSidechain && !f.sawMain) return null;
    return {
      executor: 'claude',
      nativeId: e.nativeId,
      cwd: f.cwd,
      file,
      startedAt: f.startedAt,
      lastActivityAt: f.lastActivityAt,
      title: claudeTitle(f),
      firstPrompt: f.firstPrompt,
      lastPrompt: f.lastPrompt ?? f.exitPrompt,
      userTurns: f.userTurns,
      cliVersion: f.cliVersion,
      originator: f.entrypoint,
      source: null,
      live: live.has(e.nativeId),
    };
  }
  const prompts = codexPrompts(f);
  return {
    executor: 'codex',
    nativeId: e.nativeId,
    cwd: f.cwd,
    file,
    startedAt: f.startedAt,
    lastActivityAt: f.lastActivityAt,
    title: codexTitles[e.nativeId] ?? null,
    ...prompts,
    cliVersion: f.cliVersion,
    originator: f.originator,
    source: f.source,
    live: null,
  };
}
