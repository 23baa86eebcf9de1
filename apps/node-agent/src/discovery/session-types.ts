import type { Executor } from '@bria/core/protocol';

export type { Executor };

/** One native CLI session found on this computer, whoever started it. */
export interface DiscoveredSession {
  executor: Executor;
  nativeId: string;
  cwd: string | null;
  /** Absolute path of the native journal. */
  file: string;
  startedAt: string | null;
  lastActivityAt: string | null;
  title: string | null;
  firstPrompt: string | null;
  lastPrompt: string | null;
  userTurns: number;
  cliVersion: string | null;
  /** Claude: `entrypoint` (`cli`, `sdk-cli`…); Codex: `originator` (`codex-tui`, `codex_exec`…). */
  originator: string | null;
  /** Codex `source` (`cli`, `exec`, `vscode`); null for Claude. */
  source: string | null;
  /** Claude: a live process holds the session; Codex: not known without a process scan (null). */
  live: boolean | null;
}

/** What went wrong while reading one file; counts accumulate over incremental reads. */
export interface FileProblems {
  file: string;
  malformedLines: number;
  hugeLines: number;
  /** The file ends in an unterminated line (still being written, or cut off). */
  partialTail: boolean;
  /** Error code when the file could not be opened or read. */
  unreadable: string | null;
}

export interface ScanStats {
  filesSeen: number;
  filesRead: number;
  bytesRead: number;
  durationMs: number;
}

export interface ScanResult {
  sessions: DiscoveredSession[];
  problems: FileProblems[];
  stats: ScanStats;
}
