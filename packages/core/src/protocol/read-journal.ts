import { z } from 'zod';
import { zExecutor } from './messages.ts';

/**
 * `read_journal`: the hub asks a node agent for a session's conversation as the CLI recorded it
 * (the native journal, or Bria's archive copy when the CLI has pruned it). It changes nothing on
 * the node, so it carries no generation and may run beside a session's other commands.
 *
 * Paging is by turn: turn `i` is the i-th prompt the user typed, in journal order. Without
 * `offset` the newest `limit` turns come back. The answer travels as the command's
 * `command_result` (one frame, stored once by the hub), so texts are clipped and the whole answer
 * is kept under READ_JOURNAL_MAX_BYTES; `nextOffset` says where a follow-up read would continue.
 */
export const READ_JOURNAL_MAX_TURNS = 100;
/** Budget for all texts of one answer (well under the 1 MiB frame limit with JSON escaping). */
export const READ_JOURNAL_MAX_BYTES = 256 * 1024;
/** Longest single prompt or final text sent; longer ones are clipped and marked. */
export const READ_JOURNAL_MAX_TEXT = 32 * 1024;

export const zReadJournal = z.object({
  executor: zExecutor,
  nativeSessionId: z.string().min(1).max(200),
  /** Where the hub last saw the journal; used only if it is that session's journal in the CLI's own folder. */
  journalPath: z.string().max(4096).optional(),
  offset: z.number().int().nonnegative().optional(),
  limit: z.number().int().positive().max(READ_JOURNAL_MAX_TURNS).optional(),
});
export type ReadJournalRequest = z.infer<typeof zReadJournal>;

/**
 * One user turn: `completed` (final text as Markdown), `interrupted`, `api_error` (the CLI's error
 * text), `pending` (no end recorded yet: running, or the CLI died mid-turn), `dropped` (Claude
 * discarded the prompt: a later prompt replaced it before any response), `unknown` (contradictory
 * records; never guessed around).
 */
export const zJournalTurnState = z.enum(['completed', 'interrupted', 'api_error', 'pending', 'dropped', 'unknown']);
export type JournalTurnState = z.infer<typeof zJournalTurnState>;

export const zJournalTurn = z.object({
  index: z.number().int().nonnegative(),
  /** Claude: the user record's uuid; Codex: the turn id. */
  nativeRef: z.string().max(200),
  prompt: z.string(),
  state: zJournalTurnState,
  final: z.string().optional(),
  /** Error text (api_error) or the reason (interrupted, unknown). */
  detail: z.string().max(2000).optional(),
  /** Set when `prompt` or `final` was clipped to READ_JOURNAL_MAX_TEXT. */
  clipped: z.boolean().optional(),
});
export type JournalTurn = z.infer<typeof zJournalTurn>;

export const zReadJournalResult = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    /** `native`: the CLI's own journal; `archive`: Bria's copy made when the session closed. */
    source: z.enum(['native', 'archive']),
    journalPath: z.string().max(4096),
    totalTurns: z.number().int().nonnegative(),
    offset: z.number().int().nonnegative(),
    turns: z.array(zJournalTurn).max(READ_JOURNAL_MAX_TURNS),
    /** Set when the byte budget ended the answer before `limit` turns: read on from here. */
    nextOffset: z.number().int().nonnegative().optional(),
  }),
  z.object({
    ok: z.literal(false),
    /**
     * `not_found`: neither the CLI's journal nor an archive copy exists on this node;
     * `unsupported`: the agent does not know the command (any agent's answer to an unknown type).
     */
    code: z.enum(['not_found', 'invalid', 'failed', 'unsupported']).optional(),
    error: z.string().max(500),
  }),
]);
export type ReadJournalResult = z.infer<typeof zReadJournalResult>;
