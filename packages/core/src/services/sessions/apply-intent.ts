import { AppError, refusalToAppError, type SessionEvent } from '../../domain/index.ts';
import { getSessionRow } from '../../db/repos/sessions.ts';
import { pumpQueue } from './queue-pump.ts';
import { depsOf, type ServiceDeps, type SessionDto, toSessionDto } from './session-dto.ts';
import { applyEvent } from './session-step.ts';
import { withSessionTx } from './step-context.ts';

/** A user intent (stop, close, resume): one transition with its effects, or an AppError. */
export async function applyIntent(deps: ServiceDeps, sessionId: string, event: Extract<SessionEvent, { type: 'stop_requested' | 'close_requested' | 'resume_requested' }>): Promise<SessionDto> {
  const { db, clock, log } = depsOf(deps);
  return withSessionTx(db, { log, clock }, async (ctx) => {
    const r = await applyEvent(ctx, sessionId, event, 'user');
    if (!r.ok) {
      if (r.refusal.code === 'NOT_FOUND') throw new AppError('NOT_FOUND', { message: 'session not found' });
      throw refusalToAppError(r.refusal);
    }
    await pumpQueue(ctx, sessionId);
    const row = await getSessionRow(ctx.tx, sessionId);
    if (!row) throw new AppError('NOT_FOUND', { message: 'session not found' });
    return toSessionDto(row);
  });
}
