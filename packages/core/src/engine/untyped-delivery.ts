import { untypedFromCurrentObserver, untypedWait } from '../domain/index.ts';
import { recordEvidence } from '../db/repos/evidence.ts';
import { releaseUntypedLease } from '../db/repos/messages.ts';
import { lockSession } from '../db/repos/sessions.ts';
import { scheduleTimer } from '../db/repos/timers.ts';
import { ATTACHMENT_NOT_STORED, failAttachmentMessage } from './step/carry-attachments.ts';
import type { StepContext } from './step/step-context.ts';
import type { DeliverResult } from '../protocol/command-results.ts';
import type { StoredEvent } from './stored-event.ts';

/**
 * A `deliver` the agent answered with `typed: false` never reached the CLI (no live process there,
 * not ready, a stale generation, or the agent died before typing): its lease is released
 * (`leased → pending`, allowed by the queue rules only on such proof) so the queue hands it over
 * again once the session can take it. Only the exact delivery (message id + the command that leased
 * it) is released; anything else is left alone. One the node refused because it could not store an
 * attachment is failed instead (see below).
 *
 * Not at once: the pump runs right after this in the same transaction, and the session's state has
 * not changed, so it would hand the message over again and get the same answer, in a loop (several
 * `deliver`s of one message a second for as long as the CLI stays down). The answer's `code` says why
 * (`stale_generation`, `not_typed`, …; the human text beside it is only stored), and every reason has
 * the same cure — something about the session must change
 * — so the rule is one:
 * - refused under an older observer generation than the session's current one: no wait (the new
 *   observer is another situation; the next hand-over carries the new generation);
 * - otherwise the message is held (`DeliveryHold`) until the session's version moves on (any
 *   transition: process exit → recovery, reattach / resume under a new generation, Ready confirmed,
 *   work drained) or the wait of `untypedWait` (domain/retry-schedule.ts) ends, whichever comes first; a `delivery_retry`
 *   timer wakes the pump at the end of the wait, so the message is never left pending.
 * Returns the session to pump, or null.
 */
export async function releaseUntypedDelivery(ctx: StepContext, ev: StoredEvent, r: DeliverResult): Promise<string | null> {
  if (r.typed !== false || r.messageId === undefined || !ev.sessionId || !ev.commandId) return null;
  const messageId = r.messageId;
  const row = await lockSession(ctx.tx, ev.sessionId);
  if (!row || row.nodeId !== ev.nodeId) return null;
  if (r.code === 'attachment_not_stored') {
    // The node could not store the attachment: handing it over again would fail the same way, and the
    // CLI never saw it, so the message fails as an attachment problem, never as the executor's.
    const m = await ctx.tx.message.findFirst({ where: { id: messageId, sessionId: row.id, status: 'leased', deliveryId: ev.commandId }, select: { id: true } });
    if (m) await failAttachmentMessage(ctx, row, m.id, ATTACHMENT_NOT_STORED, r.attachmentError ?? r.error ?? 'the attachment could not be stored');
    return row.id;
  }
  const generation = await commandGeneration(ctx, ev.commandId);
  // Earlier refusals are counted (a query) only when this answer is about the current observer.
  const counted = untypedFromCurrentObserver(generation, row.observerGeneration);
  const { refusals, waitMs } = untypedWait({
    commandGeneration: generation,
    observerGeneration: row.observerGeneration,
    earlier: counted ? await refusalsAtVersion(ctx, row.id, messageId, row.version) : 0,
  });
  const until = new Date(ctx.now.getTime() + waitMs);
  const moved = await releaseUntypedLease(ctx.tx, {
    id: messageId,
    sessionId: row.id,
    commandId: ev.commandId,
    hold: waitMs > 0 ? { version: row.version, until } : null,
  });
  if (!moved) return row.id;
  if (waitMs > 0) await scheduleTimer(ctx.tx, { sessionId: row.id, name: 'delivery_retry', dueAt: until, attempt: refusals });
  await recordEvidence(ctx.tx, {
    sessionId: row.id,
    event: 'delivery_not_typed',
    actor: 'agent',
    from: row.state,
    to: row.state,
    at: ctx.now,
    evidence: {
      seq: Number(ev.seq),
      messageId: messageId,
      commandId: ev.commandId,
      commandGeneration: generation,
      generation: row.observerGeneration,
      version: row.version,
      refusals,
      waitMs,
      ...(r.error !== undefined ? { reason: r.error.slice(0, 200) } : {}),
      ...(r.code === 'stale_generation' ? { stale: true } : {}),
      ...(r.interrupted === true ? { interrupted: true } : {}),
    },
  });
  ctx.log.info({ sessionId: row.id, messageId: messageId, refusals, waitMs }, 'engine.delivery_not_typed');
  return row.id;
}

/** The generation the command was issued under, read from its stored row (never from the answer). */
async function commandGeneration(ctx: StepContext, commandId: string): Promise<number | null> {
  const c = await ctx.tx.agentCommand.findUnique({ where: { id: commandId }, select: { payload: true } });
  const g = (c?.payload as { generation?: unknown } | null)?.generation;
  return typeof g === 'number' ? g : null;
}

/** Earlier `typed: false` refusals of this message while the session was at this version (a rare path). */
async function refusalsAtVersion(ctx: StepContext, sessionId: string, messageId: string, version: number): Promise<number> {
  const rows = await ctx.tx.$queryRaw<{ n: number }[]>`
    select count(*)::int as n from "SessionEvidence"
    where "sessionId" = ${sessionId}::uuid and event = 'delivery_not_typed'
      and evidence->>'messageId' = ${messageId} and evidence->>'version' = ${String(version)} and (evidence->>'waitMs')::int > 0`;
  return rows[0]?.n ?? 0;
}
