import path from 'node:path';
import type { SessionIdentity } from '../executors/index.ts';
import type { SessionRecord } from './registry.ts';

/**
 * What the record checks need to know about journal files, passed in so the checks stay pure
 * (`journalFilesOnDisk` in journal-content.ts answers from the disk).
 */
export interface JournalFiles {
  exists(file: string): boolean;
  /** Whether the file holds a conversation (true when in doubt). */
  holdsConversation(file: string): boolean;
}

/**
 * Why a start under this record could put a second CLI on a conversation that exists, or null when
 * nothing was ever typed into this session's CLI here: a delivery mark (written before every paste),
 * a bound or unconfirmed turn, a turn fact kept for replay, journal bytes read, or a journal file on
 * disk (Claude's appears with the first prompt; a Codex rollout path is learned with it).
 */
export function mayHaveTyped(rec: SessionRecord | undefined, files: JournalFiles): string | null {
  if (!rec) return null;
  if (!rec.deliveries) return 'its record predates delivery marks (nothing is proven)';
  if (rec.deliveries.length > 0) return 'a message was typed into its CLI (delivery mark)';
  if (rec.turns.length > 0 || rec.unconfirmed.length > 0 || (rec.recent?.length ?? 0) > 0 || (rec.orphans?.length ?? 0) > 0) return 'its CLI took a turn';
  if (rec.journalOffset > 0) return 'its journal was read';
  const journal = rec.identity?.journalPath;
  if (journal && files.exists(journal) && files.holdsConversation(journal)) return `its journal holds a conversation (${path.basename(journal)})`;
  return null;
}

/**
 * Whether the record's only trace of a message is delivery marks without a receipt (no bound or
 * open turn, no turn fact, no journal bytes read, no conversation in its known journal).
 */
export function onlyUnboundMarks(rec: SessionRecord, files: JournalFiles): boolean {
  const marks = rec.deliveries ?? [];
  return marks.length > 0 && marks.every((d) => !d.nativeRef) && mayHaveTyped({ ...rec, deliveries: [] }, files) === null;
}

/**
 * What a close found of the session's native journal when none was archived: `none` when no journal
 * file exists and nothing was ever typed into this session's CLI here (the CLI writes its journal only
 * with the first prompt), `missing` when something may have been typed but no file is found.
 */
export function journalState(rec: SessionRecord, candidates: (string | null | undefined)[], files: JournalFiles): 'none' | 'missing' | 'present' {
  const existing = candidates.filter((f): f is string => typeof f === 'string' && files.exists(f));
  if (existing.some((f) => files.holdsConversation(f))) return 'present';
  return mayHaveTyped({ ...rec, identity: null }, files) === null ? 'none' : 'missing';
}

/** The close evidence's `journal`: `archived`, `archived_empty` (a copy of a journal without any conversation), `none`, `missing`, `present`. */
export function closeJournal(rec: SessionRecord, journal: string | null, archived: { path?: unknown } | null | undefined, files: JournalFiles): string {
  const state = journalState(rec, [journal, rec.identity?.journalPath, typeof archived?.path === 'string' ? archived.path : null], files);
  if (!archived) return state;
  return state === 'none' ? 'archived_empty' : 'archived';
}

/**
 * Claude's journal path is known from the start, but the file appears only with the first prompt. A
 * missing journal of a session that never took one is not a different session (an agent restarted
 * before the first message could otherwise never re-attach); once a receipt was bound, or anything
 * was read from it, a missing journal stays an identity mismatch.
 */
export function journalNotYetWritten(rec: SessionRecord, identity: SessionIdentity, files: JournalFiles): boolean {
  if (!identity.journalPath || files.exists(identity.journalPath)) return false;
  if (!rec.deliveries) return false;
  const bound = rec.deliveries.some((d) => d.nativeRef) || rec.turns.length > 0 || rec.journalOffset > 0 || (rec.recent?.length ?? 0) > 0;
  return !bound;
}
