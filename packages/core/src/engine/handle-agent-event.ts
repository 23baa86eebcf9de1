import { closePromptPush, pushEvent, pushPromptOpened } from './step/push-notices.ts';
import {
  type AgentEventEffect,
  applyInterruptOutcome,
  applyTurnOutcome,
  conversationNeverBegan,
  interpret,
  type PromptEndCause,
  type PromptPhase,
  recheckStatus,
  type SessionEvent,
} from '../domain/index.ts';
import { recordEvidence } from '../db/repos/evidence.ts';
import { randomUUID } from 'node:crypto';
import { Prisma } from '../db/generated/client.ts';
import { hasOpenDialog, hasPendingHookPrompt, insertPrompt, recountOpenPrompts, resolvePrompt } from '../db/repos/prompts.ts';
import { endPrompts } from './step/end-prompts.ts';

/** A start dialog waits at the computer as long as the CLI shows it; the prompt offers it for a day. */
const DIALOG_SHOWN_MS = 24 * 3_600_000;
import { acceptReceipt, applyStatusUpdates, findTurnMessage, listQueue } from '../db/repos/messages.ts';
import { lockSession, patchSession, type SessionRow, upsertArchiveCopy } from '../db/repos/sessions.ts';
import { readSettings } from '../db/repos/settings.ts';
import { parseSessionEvent } from '../protocol/index.ts';
import { handleCommandResult } from './command-result.ts';
import { applyDiscoveryDiff } from './discovery.ts';
import { handoffFromAgent } from './handoff.ts';
import { onFinalWriteFailed, writeFinal } from './step/final-save.ts';
import { notifyChats } from './step/session-notices.ts';
import { applyEvent } from './step/session-step.ts';
import type { StepContext } from './step/step-context.ts';
import type { StoredEvent } from './stored-event.ts';
import { recordActivity } from './step/activity.ts';
import { refuse } from './step/refuse-event.ts';
import { recordLimitState, recordTurnUsage, wakeWaitingSessions } from './step/usage.ts';

/**
 * Loads the session an agent event names, asks the domain what the event means (`interpret`, pure)
 * and applies those effects in order: receipts and outcomes onto messages, facts onto the state
 * machine. Returns the session to pump afterwards (null for node-level events).
 */
export async function handleAgentEvent(ctx: StepContext, ev: StoredEvent): Promise<string | null> {
  if (ev.type === 'command_result') return handleCommandResult(ctx, ev);
  const parsed = parseSessionEvent(ev.type, ev.data);
  if (!parsed.ok) {
    ctx.log.warn({ nodeId: ev.nodeId, seq: Number(ev.seq), type: ev.type.slice(0, 64), error: parsed.error.slice(0, 200) }, 'engine.event_ignored');
    return null;
  }
  const e = parsed.event;
  if (e.name === 'discovery_diff') {
    await applyDiscoveryDiff(ctx, ev.nodeId, e.payload);
    return null;
  }
  if (e.name === 'limit_state') {
    // A fact about the CLI's account on this computer, whatever the session: every session of that
    // CLI there reads it before handing a message over (engine/step/usage.ts). A limit that lifted
    // lets their queues go: the session that reported it is pumped after this event, the others
    // woken (NOTIFY at commit).
    if ((await recordLimitState(ctx, ev.nodeId, e.payload)) && !e.payload.reached) await wakeWaitingSessions(ctx.tx, ev.nodeId, e.payload.executor);
    return ev.sessionId;
  }
  if (!ev.sessionId) return warn(ctx, ev, 'no_session');
  const row = await lockSession(ctx.tx, ev.sessionId);
  if (!row || row.nodeId !== ev.nodeId) return warn(ctx, ev, 'unknown_session');
  // Physical facts about the desk (who holds the native id) hold whatever the observer generation.
  await handoffFromAgent(ctx, row.id, e);
  const effects = interpret(
    {
      state: row.state,
      resumeState: row.resumeState,
      observerGeneration: row.observerGeneration,
      executor: row.executor,
      nativeSessionId: row.nativeSessionId,
      identityPid: (row.identity as { pid?: unknown } | null)?.pid,
      conversationMayExist: row.conversationMayExist,
      finalPending: row.pendingFinalEventId !== null,
    },
    { ...e, generation: ev.generation },
  );
  for (const fx of effects) if (!(await applyEffect(ctx, row, ev, fx))) break;
  return row.id;
}

/** Applies one effect of `interpret`; false when the effects after it must not run. */
async function applyEffect(ctx: StepContext, row: SessionRow, ev: StoredEvent, fx: AgentEventEffect): Promise<boolean> {
  const seq = Number(ev.seq);
  const fact = async (event: SessionEvent, extra?: Record<string, unknown>) => {
    const r = await applyEvent(ctx, row.id, event, 'agent', { seq, ...extra });
    if (!r.ok) await refuse(ctx, row, ev, r.refusal.code);
  };
  switch (fx.type) {
    case 'refuse':
      await refuse(ctx, row, ev, fx.code);
      return false;
    case 'fact':
      await fact(fx.event, fx.evidence);
      return true;
    case 'confirm_resume': {
      const { lifetime } = await readSettings(ctx.tx);
      await patchSession(ctx.tx, row.id, { lifetimeStartedAt: ctx.now });
      await fact({ type: 'resume_confirmed', generation: fx.generation, lifetime });
      return true;
    }
    case 'bind_identity': {
      let nativeId = fx.nativeSessionId;
      if (fx.replaceIfNoConversation && conversationNeverBegan(row, await listQueue(ctx.tx, row.id))) {
        nativeId = fx.replaceIfNoConversation;
        await recordEvidence(ctx.tx, {
          sessionId: row.id,
          event: 'native_id_replaced',
          actor: 'agent',
          from: row.state,
          to: row.state,
          at: ctx.now,
          evidence: { seq, previous: row.nativeSessionId, now: nativeId, reason: 'no_conversation_began' },
        });
      }
      await patchSession(ctx.tx, row.id, { ...(fx.identity ? { identity: fx.identity as object } : {}), nativeSessionId: nativeId });
      return true;
    }
    case 'patch': {
      const { identity, usage, ...rest } = fx.fields;
      await patchSession(ctx.tx, row.id, { ...rest, ...(identity ? { identity: identity as object } : {}), ...(usage ? { usage: usage as object } : {}) });
      return true;
    }
    case 'record_usage':
      await recordTurnUsage(ctx, row, ev, fx);
      return true;
    case 'store_archive_copy':
      await upsertArchiveCopy(ctx.tx, row.id, fx.copy);
      return true;
    case 'accept_receipt':
      if (!(await acceptTurn(ctx, row, ev, fx))) {
        await refuse(ctx, row, ev, 'NOT_LEASED');
        return false;
      }
      return true;
    case 'defer':
      await patchSession(ctx.tx, row.id, { deferredEventIds: { push: ev.id } });
      return true;
    case 'write_final': {
      const w = await writeFinal(ctx, row, fx.final);
      if (w.kind === 'no_request') await refuse(ctx, row, ev, 'NO_MATCHING_REQUEST');
      if (w.kind === 'failed') {
        const r = await applyEvent(ctx, row.id, await onFinalWriteFailed(ctx, row, ev.id, w.error), 'hub');
        if (!r.ok) ctx.log.warn({ sessionId: row.id, refusal: r.refusal }, 'engine.final_save_failed_refused');
      }
      return true;
    }
    case 'turn_ended':
      await turnEnded(ctx, row, ev, fx);
      return true;
    case 'evidence':
      await recordEvidence(ctx.tx, {
        sessionId: row.id,
        event: fx.event,
        actor: 'agent',
        from: row.state,
        to: row.state,
        evidence: { seq, ...fx.evidence },
        at: ctx.now,
      });
      return true;
    case 'notify_dialog':
      // Screen reading is the fallback: a dialog whose request a hook already reported (a prompt with
      // its own message and choices) is not told a second time from the screen.
      if (await hasPendingHookPrompt(ctx.tx, row.id)) return true;
      await notifyChats(ctx.tx, row, ctx.now, () => ({
        key: `blocked:${row.id}:${ev.seq}`,
        payload: { kind: 'blocked_on_prompt', sessionId: row.id, nodeId: row.nodeId, text: fx.text },
      }));
      return true;
    case 'recheck': {
      const m = (await listQueue(ctx.tx, row.id)).find((q) => q.id === fx.messageId);
      const to = m ? recheckStatus(m, { kind: 'no_evidence' }, fx.processAlive) : null;
      if (m && to) await applyStatusUpdates(ctx.tx, [{ id: m.id, from: m.status, to }], { now: ctx.now, detail: 'evidence_unknown' });
      return true;
    }
    case 'open_prompt': {
      if (!(await insertPrompt(ctx.tx, row.id, row.observerGeneration, fx.prompt, ev.seq))) return true;
      await recountOpenPrompts(ctx.tx, row.id);
      await recordEvidence(ctx.tx, {
        sessionId: row.id,
        event: 'permission_request',
        actor: 'agent',
        from: row.state,
        to: row.state,
        at: ctx.now,
        evidence: {
          seq,
          requestId: fx.prompt.requestId,
          kind: fx.prompt.kind,
          toolName: fx.prompt.toolName,
          expiresAt: new Date(fx.prompt.expiresAt).toISOString(),
        },
      });
      await notifyPrompt(ctx, row, fx.prompt.requestId, 'open');
      await pushPromptOpened(ctx.tx, row, fx.prompt, ctx.now);
      return true;
    }
    case 'resolve_prompt': {
      const r = await resolvePrompt(ctx.tx, row.id, fx.end, ctx.now);
      await recordEvidence(ctx.tx, {
        sessionId: row.id,
        event: 'permission_resolved',
        actor: 'agent',
        from: row.state,
        to: row.state,
        at: ctx.now,
        evidence: {
          seq,
          requestId: fx.end.requestId,
          outcome: fx.end.outcome,
          ...(fx.end.answerId ? { answerId: fx.end.answerId } : {}),
          state: r ? r.to : 'unchanged',
          ...(fx.end.evidence ?? {}),
        },
      });
      if (!r) return true;
      await recountOpenPrompts(ctx.tx, row.id);
      if (r.to === 'waiting_at_computer' || r.to === 'answered_at_computer') await notifyPrompt(ctx, row, fx.end.requestId, r.to);
      // Answered at the computer (or by a hook), delivered, or left to the computer: no device should still ask.
      await closePromptPush(ctx.tx, { promptId: fx.end.requestId, sessionId: row.id, kind: r.before.kind, now: ctx.now });
      return true;
    }
    case 'end_prompts':
      await endPromptsAt(ctx, row, ev, fx.cause, { onlyDialogs: fx.onlyDialogs === true });
      return true;
    case 'open_dialog': {
      // One open dialog prompt per session and CLI: the watch reports a changed screen again, the same
      // question. One of an earlier CLI (a start retried meanwhile) is over: its answer could not reach it.
      if (await hasOpenDialog(ctx.tx, row.id, fx.generation)) return true;
      await endPromptsAt(ctx, row, ev, 'superseded', { onlyDialogs: true });
      const requestId = randomUUID();
      await insertPrompt(
        ctx.tx,
        row.id,
        fx.generation,
        {
          requestId,
          kind: 'dialog',
          toolName: fx.dialog,
          toolInput: { text: fx.text, folder: row.folder },
          canAlwaysAllow: false,
          receivedAt: ctx.now.getTime(),
          expiresAt: ctx.now.getTime() + DIALOG_SHOWN_MS,
        },
        ev.seq,
      );
      await recountOpenPrompts(ctx.tx, row.id);
      await recordEvidence(ctx.tx, {
        sessionId: row.id,
        event: 'permission_request',
        actor: 'agent',
        from: row.state,
        to: row.state,
        at: ctx.now,
        evidence: { seq, requestId, kind: 'dialog', toolName: fx.dialog },
      });
      await notifyPrompt(ctx, row, requestId, 'open');
      await pushEvent(ctx.tx, row, { event: 'dialog_waiting', key: `prompt:${requestId}:open`, promptId: requestId, text: fx.text, now: ctx.now });
      return true;
    }
    case 'record_activity':
      await recordActivity(ctx, row, ev, fx.activity);
      return true;
    default:
      return fx satisfies never;
  }
}

/**
 * The turn or the CLI ended: the session's open prompts are over. `openedBefore`: a turn's end is
 * processed in the hub's order, which is not always the agent's (one deferred while its final could
 * not be saved is replayed later), so it ends only the prompts the agent reported before it; a later
 * turn's request stays answerable.
 */
async function endPromptsAt(
  ctx: StepContext,
  row: SessionRow,
  ev: StoredEvent,
  cause: PromptEndCause,
  o: { onlyDialogs?: boolean; openedBefore?: boolean } = {},
): Promise<void> {
  await endPrompts(ctx, row, {
    cause,
    actor: 'agent',
    seq: ev.seq,
    scope: { ...(o.onlyDialogs ? { kinds: 'dialogs' as const } : {}), ...(o.openedBefore ? { openedBeforeSeq: ev.seq } : {}) },
  });
}

function notifyPrompt(ctx: StepContext, row: SessionRow, promptId: string, phase: PromptPhase): Promise<void> {
  return notifyChats(ctx.tx, row, ctx.now, () => ({
    key: `prompt:${promptId}:${phase}`,
    payload: { kind: 'prompt', sessionId: row.id, nodeId: row.nodeId, promptId, phase },
  }));
}

/** A turn's end: the outcomes of its message(s), by message id or exact turn id, then its evidence. */
async function turnEnded(ctx: StepContext, row: SessionRow, ev: StoredEvent, fx: Extract<AgentEventEffect, { type: 'turn_ended' }>): Promise<void> {
  const msg = await findTurnMessage(ctx.tx, row.id, { ...(fx.messageId ? { messageId: fx.messageId } : {}), nativeTurnId: fx.nativeTurnId });
  const evidence = { seq: Number(ev.seq), nativeTurnId: fx.nativeTurnId, offset: fx.offset };
  if (fx.kind === 'interrupted') {
    // Per message, as the CLI proved it: only the interrupted turn's messages end here. The
    // outcomes are written before the stop is confirmed, so the machine sees what still runs.
    const updates = msg ? applyInterruptOutcome(await listQueue(ctx.tx, row.id), { messageId: msg.id, nativeTurnId: fx.nativeTurnId }) : [];
    await applyStatusUpdates(ctx.tx, updates, { now: ctx.now, detail: fx.detail });
    if (updates.length > 0 || fx.confirmsStop) await endPromptsAt(ctx, row, ev, fx.event, { openedBefore: true });
    if (fx.confirmsStop) {
      const r = await applyEvent(ctx, row.id, { type: 'interrupt_confirmed', generation: row.observerGeneration }, 'agent', {
        seq: evidence.seq,
        nativeTurnId: fx.nativeTurnId,
        offset: fx.offset,
        messages: updates.length,
      });
      if (!r.ok) await refuse(ctx, row, ev, r.refusal.code);
      return;
    }
    if (!msg) return refuse(ctx, row, ev, 'NO_MATCHING_REQUEST');
    await recordEvidence(ctx.tx, {
      sessionId: row.id,
      event: fx.event,
      actor: 'agent',
      from: row.state,
      to: row.state,
      at: ctx.now,
      evidence: { ...evidence, messages: updates.length, outcome: 'terminal_failed' },
    });
    return;
  }
  if (!msg) return refuse(ctx, row, ev, 'NO_MATCHING_REQUEST');
  // The end of a turn whose own message has its outcome already is a replay (the agent reports its
  // recent turn ends again after a re-attach): the outcome was applied then, and a follow-up accepted
  // since — Codex runs one that arrives just after the end as a turn of its own — is not part of it
  // (such a follow-up once read `completed` while its permission request was open; docs/reliability.md).
  if (msg.status === 'completed' || msg.status === 'terminal_failed') {
    await recordEvidence(ctx.tx, {
      sessionId: row.id,
      event: 'turn_end_replayed',
      actor: 'agent',
      from: row.state,
      to: row.state,
      at: ctx.now,
      evidence: { ...evidence, messageId: msg.id, status: msg.status, outcome: fx.kind },
    });
    return;
  }
  const updates = applyTurnOutcome(await listQueue(ctx.tx, row.id), msg.mainMessageId ?? msg.id, fx.kind, fx.nativeTurnId ?? null);
  await applyStatusUpdates(ctx.tx, updates, { now: ctx.now, detail: fx.detail });
  if (updates.length > 0) await endPromptsAt(ctx, row, ev, fx.event, { openedBefore: true });
  // A completed turn is announced with its final (final-save.ts); a failed or unknown end here.
  const main = updates.find((u) => u.id === (msg.mainMessageId ?? msg.id));
  if (main && (main.to === 'terminal_failed' || main.to === 'failed' || main.to === 'unknown'))
    await pushEvent(ctx.tx, row, { event: main.to === 'unknown' ? 'turn_unknown' : 'turn_failed', key: `turn:${main.id}:${main.to}`, now: ctx.now });
  await recordEvidence(ctx.tx, {
    sessionId: row.id,
    event: fx.event,
    actor: 'agent',
    from: row.state,
    to: row.state,
    at: ctx.now,
    evidence: { ...evidence, messages: updates.length, outcome: fx.kind },
  });
}

/**
 * A receipt: `leased → accepted` with the native turn / record id in one write, then `turn_started`.
 * False when the message is not leased (already accepted, or never handed over).
 */
export async function acceptTurn(
  ctx: StepContext,
  row: SessionRow,
  ev: StoredEvent,
  p: { messageId: string; nativeTurnId?: string | undefined; nativeRecordId?: string | undefined; offset?: number | undefined },
): Promise<boolean> {
  const ok = await acceptReceipt(ctx.tx, {
    id: p.messageId,
    sessionId: row.id,
    now: ctx.now,
    ...(p.nativeTurnId ? { nativeTurnId: p.nativeTurnId } : {}),
    ...(p.nativeRecordId ? { nativeRecordId: p.nativeRecordId } : {}),
  });
  if (!ok) return false;
  // A new turn starts with no activity shown (the previous turn's last step is not this one's).
  await patchSession(ctx.tx, row.id, { userTurns: { increment: 1 }, nativeLastActivity: ctx.now, activity: Prisma.DbNull, activityAt: ctx.now });
  const r = await applyEvent(ctx, row.id, { type: 'turn_started', generation: row.observerGeneration }, 'agent', {
    seq: Number(ev.seq),
    messageId: p.messageId,
    offset: p.offset ?? null,
  });
  if (!r.ok) await refuse(ctx, row, ev, r.refusal.code);
  return true;
}

function warn(ctx: StepContext, ev: StoredEvent, reason: string): null {
  ctx.log.warn({ nodeId: ev.nodeId, seq: Number(ev.seq), type: ev.type, reason }, 'engine.event_dropped');
  return null;
}
