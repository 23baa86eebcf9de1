import { z } from 'zod';
import { READ_JOURNAL_MAX_TURNS, zJournalTurn } from '../../../protocol/index.ts';
import { readSessionJournal } from '../../../services/sessions/read-journal.ts';
import { authedProcedure } from '../../init.ts';
import { zId } from '../zod-shared.ts';

export const ZJournalRequest = z.object({
  sessionId: zId,
  /** First turn to return; without it the newest `limit` turns. */
  offset: z.number().int().nonnegative().optional(),
  limit: z.number().int().positive().max(READ_JOURNAL_MAX_TURNS).optional(),
});

export const ZJournalResponse = z.discriminatedUnion('available', [
  z.object({
    available: z.literal(true),
    source: z.enum(['native', 'archive']),
    totalTurns: z.number().int().nonnegative(),
    offset: z.number().int().nonnegative(),
    nextOffset: z.number().int().nonnegative().nullable(),
    turns: z.array(
      zJournalTurn.extend({
        message: z.object({ id: zId, seq: z.number().int(), status: z.string(), outcomeDetail: z.string().nullable() }).nullable(),
      }),
    ),
  }),
  z.object({
    available: z.literal(false),
    reason: z.enum(['node_offline', 'agent_too_old', 'no_native_id', 'not_written_yet', 'not_found', 'timeout', 'failed']),
    detail: z.string().nullable(),
  }),
]);

/** The conversation from the native journal, read on the node; `available: false` says why not. */
export const journalRoute = authedProcedure
  .input(ZJournalRequest)
  .output(ZJournalResponse)
  .query(({ ctx, input }) => readSessionJournal({ db: ctx.db }, input));
