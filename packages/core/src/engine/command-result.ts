import { type CommandResultEffect, commandResultReads, interpretCommandResult } from '../domain/command-facts.ts';
import { recordEvidence } from '../db/repos/evidence.ts';
import { applyStatusUpdates } from '../db/repos/messages.ts';
import { lockSession, type SessionRow } from '../db/repos/sessions.ts';
import { notifyChats } from './step/session-notices.ts';
import { applyEvent } from './step/session-step.ts';
import type { StepContext } from './step/step-context.ts';
import { acceptTurn } from './handle-agent-event.ts';
import { parseCommandResult } from '../protocol/command-results.ts';
import type { StoredEvent } from './stored-event.ts';
import { releaseUntypedDelivery } from './untyped-delivery.ts';

/** The log line of a fact the machine refused, by the rule that raised it. */
const REFUSED_LOG = {
  close_interrupted: { level: 'warn', msg: 'engine.interrupted_close_refused' },
  launch_interrupted: { level: 'info', msg: 'engine.interrupted_launch_refused' },
  resume_refused: { level: 'info', msg: 'engine.resume_refusal_refused' },
} as const;

/**
 * A command's answer (`command_result`): asks the domain what to load (`commandResultReads`), loads
 * it (the session of the answering node, the command's stored generation, the message it leased),
 * asks what the answer means (`interpretCommandResult`, `domain/command-facts.ts`, where the rules
 * are) and applies the effects in order. A `deliver` answered `typed: false` goes to the hold of
 * `untyped-delivery.ts`. Returns the session to pump, or null.
 */
export async function handleCommandResult(ctx: StepContext, ev: StoredEvent): Promise<string | null> {
  const parsed = parseCommandResult(ev.data ?? {});
  if (!parsed.ok) {
    ctx.log.warn({ nodeId: ev.nodeId, seq: Number(ev.seq), error: parsed.error.slice(0, 200) }, 'engine.command_result_unreadable');
    return null;
  }
  const r = parsed.result;
  if (r.kind === 'other' && r.command === 'compact_context') return compacted(ctx, ev, r);
  const reads = commandResultReads(r, ev.commandId ?? null);
  if (reads === 'untyped') return r.kind === 'deliver' ? releaseUntypedDelivery(ctx, ev, r) : null;
  if (reads === null) return null;
  const row = await ownSession(ctx, ev);
  if (!row) return null;
  const commandGeneration = reads.commandGeneration && ev.commandId ? await readCommandGeneration(ctx, ev.commandId) : null;
  const leasedMessageId = reads.leasedMessage && r.kind === 'deliver' ? await leasedBy(ctx, row, ev, r.messageId) : null;
  const effects = interpretCommandResult(
    {
      state: row.state,
      resumeState: row.resumeState,
      observerGeneration: row.observerGeneration,
      executor: row.executor,
      commandId: ev.commandId ?? null,
      commandGeneration,
      leasedMessageId,
    },
    r,
  );
  for (const fx of effects) await applyEffect(ctx, row, ev, fx);
  return row.id;
}

/** Applies one effect of `interpretCommandResult`. */
async function applyEffect(ctx: StepContext, row: SessionRow, ev: StoredEvent, fx: CommandResultEffect): Promise<void> {
  const seq = Number(ev.seq);
  switch (fx.type) {
    case 'evidence':
      await recordEvidence(ctx.tx, {
        sessionId: row.id,
        event: fx.event,
        actor: 'agent',
        from: row.state,
        to: row.state,
        at: ctx.now,
        evidence: { seq, ...fx.evidence },
      });
      return;
    case 'message_unknown':
      await applyStatusUpdates(ctx.tx, [{ id: fx.messageId, from: 'leased', to: 'unknown' }], { now: ctx.now, detail: fx.detail });
      return;
    case 'accept_receipt':
      await acceptTurn(ctx, row, ev, fx);
      return;
    case 'fact': {
      const s = await applyEvent(ctx, row.id, fx.event, fx.actor, { seq, ...fx.evidence });
      if (!s.ok) ctx.log[REFUSED_LOG[fx.why].level]({ sessionId: row.id, refusal: s.refusal }, REFUSED_LOG[fx.why].msg);
      return;
    }
    default:
      return fx satisfies never;
  }
}

async function ownSession(ctx: StepContext, ev: StoredEvent): Promise<SessionRow | null> {
  if (!ev.sessionId) return null;
  const row = await lockSession(ctx.tx, ev.sessionId);
  return row && row.nodeId === ev.nodeId ? row : null;
}

/** The generation the command was issued under, read from its stored row (never from the answer). */
async function readCommandGeneration(ctx: StepContext, commandId: string): Promise<number | null> {
  const c = await ctx.tx.agentCommand.findUnique({ where: { id: commandId }, select: { payload: true } });
  const g = (c?.payload as { generation?: unknown } | null)?.generation;
  return typeof g === 'number' ? g : null;
}

/** The answer's message when it is still leased by this exact command. */
async function leasedBy(ctx: StepContext, row: SessionRow, ev: StoredEvent, messageId: string | undefined): Promise<string | null> {
  if (messageId === undefined || !ev.commandId) return null;
  const m = await ctx.tx.message.findFirst({ where: { id: messageId, sessionId: row.id, status: 'leased', deliveryId: ev.commandId }, select: { id: true } });
  return m?.id ?? null;
}

/** The answer of a `/compact`: evidence on the timeline and a notice to the session's chats. */
async function compacted(
  ctx: StepContext,
  ev: StoredEvent,
  r: { ok?: boolean | undefined; error?: string | undefined; [k: string]: unknown },
): Promise<string | null> {
  const row = await ownSession(ctx, ev);
  if (!row) return null;
  const ok = r.ok === true;
  const detail = (ok ? String(r.detail ?? 'Compacted') : (r.error ?? 'failed')).slice(0, 400);
  await recordEvidence(ctx.tx, {
    sessionId: row.id,
    event: ok ? 'compact_done' : 'compact_failed',
    actor: 'agent',
    from: row.state,
    to: row.state,
    at: ctx.now,
    evidence: { seq: Number(ev.seq), detail, ...(r.unconfirmed ? { unconfirmed: true } : {}) },
  });
  await notifyChats(ctx.tx, row, ctx.now, () => ({
    key: `compacted:${ev.commandId ?? ev.seq}`,
    payload: { kind: 'compacted', sessionId: row.id, nodeId: row.nodeId, ok, detail },
  }));
  return row.id;
}
