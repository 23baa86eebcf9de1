import { recordEvidence } from '../../db/repos/evidence.ts';
import type { SessionRow } from '../../db/repos/sessions.ts';
import type { StoredEvent } from '../stored-event.ts';
import type { StepContext } from './step-context.ts';

/**
 * An agent report the session's table refused (an outdated generation, a move it does not allow):
 * kept as evidence on the session, and logged — through the engine's refusal log when it runs (one
 * readable line per kind with a count, refusal-log.ts), else one line per report.
 */
export async function refuse(ctx: StepContext, row: SessionRow, ev: StoredEvent, code: string): Promise<void> {
  const refusal = { sessionId: row.id, nodeId: row.nodeId, seq: Number(ev.seq), type: ev.type, code };
  if (ctx.refusals) ctx.refusals.note(refusal);
  else ctx.log.info(refusal, 'engine.event_refused');
  await recordEvidence(ctx.tx, {
    sessionId: row.id,
    event: `refused:${ev.type}`,
    actor: 'agent',
    from: row.state,
    to: row.state,
    at: ctx.now,
    evidence: { seq: Number(ev.seq), code, generation: ev.generation, currentGeneration: row.observerGeneration },
  });
}
