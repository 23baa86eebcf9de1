import type { ActivityReport } from '../../domain/index.ts';
import type { SessionRow } from '../../db/repos/sessions.ts';
import type { StoredEvent } from '../stored-event.ts';
import type { StepContext } from './step-context.ts';

/** Live progress of a turn: stored in a following commit (SessionActivity); logged until then. */
export async function recordActivity(ctx: StepContext, row: SessionRow, ev: StoredEvent, activity: ActivityReport): Promise<void> {
  ctx.log.debug({ sessionId: row.id, seq: Number(ev.seq), items: activity.items.length }, 'engine.activity');
}
