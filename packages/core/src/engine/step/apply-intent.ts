import { AppError, refusalToAppError, type SessionEvent } from '../../domain/index.ts';
import type { Db } from '../../db/client.ts';
import { getSessionRow, type SessionRow } from '../../db/repos/sessions.ts';
import type { Logger } from '../../log.ts';
import { pumpQueue } from './queue-pump.ts';
import { endPromptsForStop } from './end-prompts.ts';
import { applyEvent } from './session-step.ts';
import { type Clock, withSessionTx } from './step-context.ts';

/** A user intent (stop, close, resume): one transition with its effects, or an AppError. Returns the session row after it. */
export async function applyIntent(
  o: { db: Db; clock: Clock; log: Logger },
  sessionId: string,
  event: Extract<SessionEvent, { type: 'stop_requested' | 'close_requested' | 'resume_requested' }>,
): Promise<SessionRow> {
  return withSessionTx(o.db, { log: o.log, clock: o.clock }, async (ctx) => {
    const r = await applyEvent(ctx, sessionId, event, 'user');
    if (!r.ok) {
      if (r.refusal.code === 'NOT_FOUND') throw new AppError('NOT_FOUND', { message: 'session not found' });
      throw refusalToAppError(r.refusal);
    }
    if (event.type === 'stop_requested') {
      const stopping = await getSessionRow(ctx.tx, sessionId);
      if (stopping) await endPromptsForStop(ctx, stopping, 'user');
    }
    await pumpQueue(ctx, sessionId);
    const row = await getSessionRow(ctx.tx, sessionId);
    if (!row) throw new AppError('NOT_FOUND', { message: 'session not found' });
    return row;
  });
}
