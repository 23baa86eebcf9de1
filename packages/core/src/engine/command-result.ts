import { recordEvidence } from '../db/repos/evidence.ts';
import { applyStatusUpdates } from '../db/repos/messages.ts';
import { lockSession, type SessionRow } from '../db/repos/sessions.ts';
import { applyEvent } from './step/session-step.ts';
import type { StepContext } from './step/step-context.ts';
import { acceptTurn } from './handle-agent-event.ts';
import { type DeliverResult, type LaunchResult, parseCommandResult } from '../protocol/command-results.ts';
import type { StoredEvent } from './stored-event.ts';
import { releaseUntypedDelivery } from './untyped-delivery.ts';

/**
 * What a command's answer changes. Every effect is conditional on the exact command id (the message's
 * `deliveryId`, the session's current state), so an answer that arrives twice changes nothing the
 * second time. Session facts travel as their own events; this covers what only the answer can tell:
 * - `deliver` `typed: false`: the lease is released (see `untyped-delivery.ts`);
 * - `deliver` `unknown` (no receipt in time, or the agent died between the paste and the receipt):
 *   the leased message becomes `unknown`, never handed over again, and the queue moves on;
 * - `deliver` `accepted` after an interruption: the receipt the agent bound before it died is
 *   applied if its own `turn_accepted` was not (refused as stale, say);
 * - an interrupted `close_session`: the close is asked for again (as when a node returns);
 * - an interrupted `start_session` / `resume_session`: the agent ended the never-confirmed CLI; the
 *   session is treated as after a verified exit of its process (recovery takes over);
 * - a `resume_session` the agent refused without a `resume_failed` fact (a payload it could not
 *   read, an unsupported command): the resume fails at once with the agent's answer as its cause.
 * Returns the session to pump, or null.
 */
export async function handleCommandResult(ctx: StepContext, ev: StoredEvent): Promise<string | null> {
  const parsed = parseCommandResult(ev.data ?? {});
  if (!parsed.ok) {
    ctx.log.warn({ nodeId: ev.nodeId, seq: Number(ev.seq), error: parsed.error.slice(0, 200) }, 'engine.command_result_unreadable');
    return null;
  }
  const r = parsed.result;
  if (r.kind === 'deliver') {
    if (r.typed === false) return releaseUntypedDelivery(ctx, ev, r);
    if (r.delivery === 'unknown') return deliveryUnknown(ctx, ev, r);
    if (r.delivery === 'accepted' && r.interrupted === true) return interruptedReceipt(ctx, ev, r);
    return null;
  }
  if (r.kind === 'launch' && r.command === 'resume_session' && r.ok === false && r.interrupted !== true && resumeRefusal(r)) return resumeRefused(ctx, ev, r);
  if (r.interrupted !== true || !ev.sessionId || !ev.commandId) return null;
  const row = await ownSession(ctx, ev);
  if (!row) return null;
  await recordEvidence(ctx.tx, { sessionId: row.id, event: 'command_interrupted', actor: 'agent', from: row.state, to: row.state, at: ctx.now,
    evidence: { seq: Number(ev.seq), command: String(r.command).slice(0, 32), commandId: ev.commandId } });
  const generation = await commandGeneration(ctx, ev.commandId);
  if (r.command === 'close_session' && row.state === 'Closing') {
    const s = await applyEvent(ctx, row.id, { type: 'node_returned', evidence: { reason: 'close_interrupted' } }, 'hub', { seq: Number(ev.seq) });
    if (!s.ok) ctx.log.warn({ sessionId: row.id, refusal: s.refusal }, 'engine.interrupted_close_refused');
  }
  if (r.kind === 'launch' && r.exited === true && generation === row.observerGeneration) {
    const s = await applyEvent(ctx, row.id, { type: 'process_exited_verified', generation: row.observerGeneration, evidence: { reason: `${String(r.command)}_interrupted` } }, 'agent', { seq: Number(ev.seq) });
    if (!s.ok) ctx.log.info({ sessionId: row.id, refusal: s.refusal }, 'engine.interrupted_launch_refused');
  }
  return row.id;
}

/**
 * Whether a failed resume answer is a refusal the session's attempt must end on. Not for a stale
 * generation (the attempt it belonged to is over) nor a start left on a dialog (bounded by the
 * resume's own timer).
 */
function resumeRefusal(r: LaunchResult): boolean {
  switch (r.code) {
    case 'stale_generation':
    case 'blocked':
    case 'interrupted':
      return false;
    default:
      return true;
  }
}

/**
 * The agent answered a resume with a refusal. When it also sent `resume_failed` (every refusal it
 * decides itself), that fact came first (events are processed in seq order) and the session has
 * left the attempt, so nothing happens here; otherwise the attempt would wait for an answer that
 * never comes. Only for the exact attempt: the command's generation must still be the session's.
 */
async function resumeRefused(ctx: StepContext, ev: StoredEvent, r: LaunchResult): Promise<string | null> {
  if (!ev.commandId) return null;
  const row = await ownSession(ctx, ev);
  if (!row) return null;
  const attempt = row.state === 'Resuming' || (row.state === 'AwaitingRecovery' && row.resumeState === 'Resuming');
  if (!attempt || (await commandGeneration(ctx, ev.commandId)) !== row.observerGeneration) return row.id;
  const cause = `the computer refused the resume: ${r.error ? r.error : 'no reason given'}`.slice(0, 500);
  const s = await applyEvent(ctx, row.id, { type: 'resume_failed', generation: row.observerGeneration, cause }, 'agent', { seq: Number(ev.seq), commandId: ev.commandId });
  if (!s.ok) ctx.log.info({ sessionId: row.id, refusal: s.refusal }, 'engine.resume_refusal_refused');
  return row.id;
}

async function ownSession(ctx: StepContext, ev: StoredEvent): Promise<SessionRow | null> {
  if (!ev.sessionId) return null;
  const row = await lockSession(ctx.tx, ev.sessionId);
  return row && row.nodeId === ev.nodeId ? row : null;
}

/** The generation the command was issued under, read from its stored row (never from the answer). */
async function commandGeneration(ctx: StepContext, commandId: string): Promise<number | null> {
  const c = await ctx.tx.agentCommand.findUnique({ where: { id: commandId }, select: { payload: true } });
  const g = (c?.payload as { generation?: unknown } | null)?.generation;
  return typeof g === 'number' ? g : null;
}

async function leasedBy(ctx: StepContext, row: SessionRow, ev: StoredEvent, messageId: string | undefined) {
  if (messageId === undefined || !ev.commandId) return null;
  return ctx.tx.message.findFirst({ where: { id: messageId, sessionId: row.id, status: 'leased', deliveryId: ev.commandId }, select: { id: true } });
}

async function deliveryUnknown(ctx: StepContext, ev: StoredEvent, r: DeliverResult): Promise<string | null> {
  const row = await ownSession(ctx, ev);
  if (!row) return null;
  const m = await leasedBy(ctx, row, ev, r.messageId);
  if (!m) return row.id;
  await applyStatusUpdates(ctx.tx, [{ id: m.id, from: 'leased', to: 'unknown' }], { now: ctx.now, detail: r.interrupted === true ? 'delivery_interrupted' : 'no_receipt' });
  await recordEvidence(ctx.tx, { sessionId: row.id, event: 'delivery_unknown', actor: 'agent', from: row.state, to: row.state, at: ctx.now,
    evidence: { seq: Number(ev.seq), messageId: m.id, commandId: ev.commandId ?? null, interrupted: r.interrupted === true } });
  return row.id;
}

async function interruptedReceipt(ctx: StepContext, ev: StoredEvent, r: DeliverResult): Promise<string | null> {
  const row = await ownSession(ctx, ev);
  if (!row) return null;
  const m = await leasedBy(ctx, row, ev, r.messageId);
  if (!m || r.nativeRef === undefined || r.nativeRef.length === 0 || r.nativeRef.length > 200) return row.id;
  const ref = row.executor === 'codex' ? { nativeTurnId: r.nativeRef } : { nativeRecordId: r.nativeRef };
  await acceptTurn(ctx, row, ev, { messageId: m.id, ...ref });
  return row.id;
}
