import { endUnconfirmedStop, failUndelivered, transition, type SessionEffect, type SessionEvent, type TransitionRefusal } from '../../domain/index.ts';
import { applyStatusUpdates, listQueue } from '../../db/repos/messages.ts';
import { recordEvidence } from '../../db/repos/evidence.ts';
import { lockSession, writeSession, type SessionRow } from '../../db/repos/sessions.ts';
import { cancelTimer, scheduleTimer } from '../../db/repos/timers.ts';
import { commitArchive, retryFinalSave } from './final-save.ts';
import { sendSessionCommand } from './session-commands.ts';
import { notifyEffect, notifyProgress } from './session-notices.ts';
import { snapshotColumns, toSnapshot } from './snapshot.ts';
import { type StepContext, VersionConflict } from './step-context.ts';

export type Actor = 'agent' | 'hub' | 'user' | 'timer';
export type StepResult = { ok: true; row: SessionRow } | { ok: false; refusal: TransitionRefusal | { code: 'NOT_FOUND' } };

/**
 * Applies one domain event to a session inside the caller's transaction: lock, transition, write
 * with the version check, then run every effect (evidence, commands, outbox, timers, queue) in the
 * same transaction. Hub facts that effects produce (archive committed, final saved…) are applied
 * right after, in order.
 */
export async function applyEvent(ctx: StepContext, sessionId: string, event: SessionEvent, actor: Actor, extra?: Record<string, unknown>): Promise<StepResult> {
  const row = await lockSession(ctx.tx, sessionId);
  if (!row) return { ok: false, refusal: { code: 'NOT_FOUND' } };
  const queue = await listQueue(ctx.tx, sessionId);
  const r = transition(toSnapshot(row, queue), event, ctx.now, { jitter: ctx.jitter() });
  if (!r.ok) return r;
  const cols = snapshotColumns(r.next);
  if (!(await writeSession(ctx.tx, sessionId, row.version, cols))) throw new VersionConflict(sessionId);
  const next: SessionRow = { ...row, ...cols, version: row.version + 1 };
  const followUps = await runEffects(ctx, row, next, r.effects, actor, extra);
  if (row.state !== next.state) await notifyProgress(ctx.tx, next, row.state, next.state, ctx.now);
  if (next.state === 'ResumeFailed') followUps.push({ type: 'resume_failure_reported' });
  for (const f of followUps) {
    const fr = await applyEvent(ctx, sessionId, f, 'hub');
    if (!fr.ok) ctx.log.warn({ sessionId, event: f.type, refusal: fr.refusal }, 'engine.follow_up_refused');
  }
  return { ok: true, row: next };
}

async function runEffects(
  ctx: StepContext,
  before: SessionRow,
  row: SessionRow,
  effects: SessionEffect[],
  actor: Actor,
  extra?: Record<string, unknown>,
): Promise<SessionEvent[]> {
  const { tx, now } = ctx;
  const follow: SessionEvent[] = [];
  for (const fx of effects) {
    switch (fx.type) {
      case 'record_evidence':
        await recordEvidence(tx, {
          sessionId: row.id,
          event: fx.event,
          actor,
          from: fx.from,
          to: fx.to,
          evidence: { ...(fx.evidence ?? {}), ...(extra ?? {}), version: row.version, generation: row.observerGeneration },
          at: now,
        });
        break;
      case 'send_command':
        await sendSessionCommand(tx, row, fx);
        break;
      case 'notify': {
        // The domain does not know why a write failed; the step that saw the failure does.
        const detail = fx.detail ?? (fx.kind === 'final_save_failing' ? ctx.finalSaveCause : undefined);
        await notifyEffect(tx, row, fx.kind, { now, ...(detail ? { detail } : {}) });
        break;
      }
      case 'schedule':
        await scheduleTimer(tx, { sessionId: row.id, name: fx.timer, dueAt: fx.at, attempt: fx.attempt ?? 0 });
        break;
      case 'cancel':
        await cancelTimer(tx, row.id, fx.timer);
        break;
      case 'queue':
        await queueOp(ctx, row, fx.op, fx.reason);
        break;
      case 'retry_final_save':
        follow.push(...(await retryFinalSave(ctx, row, fx.attempt)));
        break;
      case 'commit_archive':
        follow.push(await commitArchive(ctx, row, fx.attempt));
        break;
      default:
        fx satisfies never;
    }
  }
  void before;
  return follow;
}

async function queueOp(
  ctx: StepContext,
  row: SessionRow,
  op: 'wake' | 'fail_undelivered' | 'recheck_outcomes' | 'end_unconfirmed_stop',
  reason?: string,
): Promise<void> {
  switch (op) {
    case 'wake':
      return; // the caller pumps the queue after every step
    case 'fail_undelivered':
      await applyStatusUpdates(ctx.tx, failUndelivered(await listQueue(ctx.tx, row.id)), { now: ctx.now, detail: reason ?? 'not_delivered' });
      return;
    case 'end_unconfirmed_stop':
      await applyStatusUpdates(ctx.tx, endUnconfirmedStop(await listQueue(ctx.tx, row.id)), { now: ctx.now, detail: 'stop_unconfirmed' });
      return;
    case 'recheck_outcomes':
      // The new observer re-reports outcomes of accepted messages by id; a final that could not be
      // saved before the binding changed is retried at once under the new binding.
      if (row.pendingFinalEventId !== null)
        await scheduleTimer(ctx.tx, { sessionId: row.id, name: 'final_save_retry', dueAt: ctx.now, attempt: Math.max(1, row.finalSaveAttempts) });
      return;
    default:
      return op satisfies never;
  }
}
