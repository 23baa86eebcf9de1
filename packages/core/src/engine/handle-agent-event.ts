import { applyInterruptOutcome, applyTurnOutcome, conversationNeverBegan, recheckStatus, type SessionEvent } from '../domain/index.ts';
import { recordEvidence } from '../db/repos/evidence.ts';
import { acceptReceipt, applyStatusUpdates, findTurnMessage, listQueue } from '../db/repos/messages.ts';
import { lockSession, patchSession, type SessionRow, upsertArchiveCopy } from '../db/repos/sessions.ts';
import { readSettings } from '../db/repos/settings.ts';
import { type ParsedSessionEvent, parseSessionEvent } from '../protocol/index.ts';
import { onFinalWriteFailed, writeFinal } from './step/final-save.ts';
import { notifyChats } from './step/session-notices.ts';
import { applyEvent } from './step/session-step.ts';
import type { StepContext } from './step/step-context.ts';
import { applyDiscoveryDiff } from './discovery.ts';
import type { StoredEvent } from './stored-event.ts';
import { handleCommandResult } from './command-result.ts';

/**
 * Maps one stored agent event onto the session: receipts and outcomes onto messages, facts onto
 * the state machine. Returns the session to pump afterwards (null for node-level events).
 * Events of a superseded observer generation are refused and leave only an evidence row.
 */
export async function handleAgentEvent(ctx: StepContext, ev: StoredEvent): Promise<string | null> {
  if (ev.type === 'command_result') return handleCommandResult(ctx, ev);
  const parsed = parseSessionEvent(ev.type, ev.data);
  if (!parsed.ok) {
    if (ev.type !== 'command_result') ctx.log.warn({ nodeId: ev.nodeId, seq: Number(ev.seq), type: ev.type.slice(0, 64), error: parsed.error.slice(0, 200) }, 'engine.event_ignored');
    return null;
  }
  const e = parsed.event;
  if (e.name === 'discovery_diff') {
    await applyDiscoveryDiff(ctx, ev.nodeId, e.payload);
    return null;
  }
  if (!ev.sessionId) return warn(ctx, ev, 'no_session');
  const row = await lockSession(ctx.tx, ev.sessionId);
  if (!row || row.nodeId !== ev.nodeId) return warn(ctx, ev, 'unknown_session');
  if (ev.generation === null || ev.generation !== row.observerGeneration) {
    if (e.name === 'blocked_on_prompt' && dialogOfWaitingStart(row, ev.generation)) {
      await dispatch(ctx, row, ev, e);
      return row.id;
    }
    await refuse(ctx, row, ev, 'STALE_GENERATION');
    return row.id;
  }
  await dispatch(ctx, row, ev, e);
  return row.id;
}

async function dispatch(ctx: StepContext, row: SessionRow, ev: StoredEvent, e: ParsedSessionEvent): Promise<void> {
  const g = row.observerGeneration;
  const fact = async (event: SessionEvent, extra?: Record<string, unknown>) => {
    const r = await applyEvent(ctx, row.id, event, 'agent', { seq: Number(ev.seq), ...extra });
    if (!r.ok) await refuse(ctx, row, ev, r.refusal.code);
  };
  switch (e.name) {
    case 'session_ready':
    case 'resume_confirmed':
    case 'reattached': {
      const identity = e.payload.identity ?? null;
      const reported = typeof identity?.nativeSessionId === 'string' ? identity.nativeSessionId : null;
      let nativeId = row.nativeSessionId ?? reported;
      // A Codex CLI started again (its first one died before any message, so it never wrote a
      // rollout) shows a new id: the id shown by the dead one named nothing that exists, and is only
      // replaced when that is certain (domain README, decision 7). Otherwise the stored id is kept.
      // The new id may first arrive with a re-attach: the start's own `session_ready` can be refused
      // as stale when starts queued while the node was away all run on its return (chaos seed 7022).
      if (e.name !== 'resume_confirmed' && row.executor === 'codex' && row.nativeSessionId && reported && reported !== row.nativeSessionId
        && conversationNeverBegan(row, await listQueue(ctx.tx, row.id))) {
        nativeId = reported;
        await recordEvidence(ctx.tx, { sessionId: row.id, event: 'native_id_replaced', actor: 'agent', from: row.state, to: row.state, at: ctx.now,
          evidence: { seq: Number(ev.seq), previous: row.nativeSessionId, now: reported, reason: 'no_conversation_began' } });
      }
      await patchSession(ctx.tx, row.id, { ...(identity ? { identity: identity as object } : {}), nativeSessionId: nativeId });
      if (row.state === 'AwaitingRecovery') {
        await fact({ type: 'reattached', generation: g, mode: e.name === 'reattached' ? 'observer' : 'exact_resume' });
        // The agent reports an identity only once the CLI has finished starting, so a session that
        // lost its binding while Starting is ready now: its own session_ready was refused as stale.
        if (row.resumeState === 'Starting' && identity) await fact({ type: 'cli_ready', generation: g });
        return;
      }
      if (e.name === 'session_ready' && row.state !== 'Resuming') return fact({ type: 'cli_ready', generation: g });
      // A resumed CLI reporting ready is the resume confirmation.
      if (e.name === 'resume_confirmed' || (e.name === 'session_ready' && row.state === 'Resuming')) {
        const { lifetime } = await readSettings(ctx.tx);
        await patchSession(ctx.tx, row.id, { lifetimeStartedAt: ctx.now });
        return fact({ type: 'resume_confirmed', generation: g, lifetime });
      }
      return fact({ type: 'reattached', generation: g, mode: 'observer' });
    }
    case 'resume_failed':
      if (e.payload.code === 'conversation_may_exist' && !row.conversationMayExist) {
        // The agent knows better than the queue: something may have reached the CLI. Recovery
        // re-attaches and then resumes exactly from now on; asking for a start again would only be
        // refused once more (chaos seed 6025).
        await patchSession(ctx.tx, row.id, { conversationMayExist: true });
      }
      return fact({ type: 'resume_failed', generation: g, cause: e.payload.reason }, { cause: e.payload.reason.slice(0, 300), ...(e.payload.code ? { code: e.payload.code } : {}) });
    case 'observer_lost':
      return fact({ type: 'observer_lost', generation: g });
    case 'identity_mismatch':
      return fact({ type: 'reattach_refused', generation: g, reason: e.payload.reason });
    case 'process_exited': {
      const evidence = { pids: e.payload.pids.join(','), exitStatus: e.payload.exitStatus, paneDead: e.payload.paneDead, verified: e.payload.verified };
      // Observer EOF or an unverified exit proves nothing about the CLI: only the binding is lost.
      return fact({ type: e.payload.verified ? 'process_exited_verified' : 'observer_lost', generation: g, evidence });
    }
    case 'session_closed': {
      if (e.payload.archivedJournal) await upsertArchiveCopy(ctx.tx, row.id, e.payload.archivedJournal);
      // The close evidence says what became of the journal: `archived` / `archived_empty` (an
      // ArchiveCopy row), `none` (the CLI never wrote one: closed before any message, so the session
      // is archived without a copy — domain README, decision 15), `missing` or `present` (not
      // archived), `unreported` (an agent from before this field).
      const said = e.payload.evidence.journal;
      const journal = typeof said === 'string' ? said.slice(0, 32) : e.payload.archivedJournal ? 'archived' : 'unreported';
      return fact({ type: e.payload.evidence.verified ? 'process_exited_verified' : 'observer_lost', generation: g, evidence: { ...e.payload.evidence, journal } });
    }
    case 'turn_accepted': {
      // The identity learned with the receipt (a Codex rollout path), for the same native session and
      // the same process only: a replayed receipt must never put back the identity of a dead CLI.
      const id = e.payload.identity;
      const idNative = typeof id?.nativeSessionId === 'string' ? id.nativeSessionId : null;
      const storedPid = (row.identity as { pid?: unknown } | null)?.pid;
      const sameProcess = storedPid === undefined || storedPid === id?.pid;
      if (id && sameProcess && (!row.nativeSessionId || !idNative || idNative === row.nativeSessionId)) {
        await patchSession(ctx.tx, row.id, { identity: id as object, ...(row.nativeSessionId ? {} : idNative ? { nativeSessionId: idNative } : {}) });
      }
      const ok = await acceptTurn(ctx, row, ev, e.payload);
      if (!ok) return refuse(ctx, row, ev, 'NOT_LEASED');
      return;
    }
    case 'turn_final': {
      if (row.pendingFinalEventId !== null) return defer(ctx, row, ev);
      const w = await writeFinal(ctx, row, e.payload);
      if (w.kind === 'no_request') return refuse(ctx, row, ev, 'NO_MATCHING_REQUEST');
      if (w.kind === 'failed') {
        const r = await applyEvent(ctx, row.id, await onFinalWriteFailed(ctx, row, ev.id, w.error), 'hub');
        if (!r.ok) ctx.log.warn({ sessionId: row.id, refusal: r.refusal }, 'engine.final_save_failed_refused');
      }
      return;
    }
    case 'turn_completed':
    case 'turn_api_error':
    case 'turn_interrupted': {
      if (row.pendingFinalEventId !== null) return defer(ctx, row, ev);
      const msg = await findTurnMessage(ctx.tx, row.id, { ...(e.payload.messageId ? { messageId: e.payload.messageId } : {}), nativeTurnId: e.payload.nativeTurnId });
      const stopping = row.state === 'Stopping' || row.state === 'ClosingAfterWork';
      if (e.name === 'turn_interrupted') {
        // Per message, as the CLI proved it: only the interrupted turn's messages end here. The
        // outcomes are written before the stop is confirmed, so the machine sees what still runs.
        const updates = msg ? applyInterruptOutcome(await listQueue(ctx.tx, row.id), { messageId: msg.id, nativeTurnId: e.payload.nativeTurnId }) : [];
        // A turn ended by the user's Stop keeps the stop's own detail ('interrupted'), so the chat and
        // the page say "stopped"; one ended on the computer says the CLI interrupted it.
        await applyStatusUpdates(ctx.tx, updates, { now: ctx.now, detail: stopping ? 'interrupted' : e.name });
        if (stopping) return fact({ type: 'interrupt_confirmed', generation: g }, { nativeTurnId: e.payload.nativeTurnId, offset: e.payload.offset ?? null, messages: updates.length });
        if (!msg) return refuse(ctx, row, ev, 'NO_MATCHING_REQUEST');
        await recordEvidence(ctx.tx, { sessionId: row.id, event: e.name, actor: 'agent', from: row.state, to: row.state, at: ctx.now,
          evidence: { seq: Number(ev.seq), nativeTurnId: e.payload.nativeTurnId, offset: e.payload.offset ?? null, messages: updates.length, outcome: 'terminal_failed' } });
        return;
      }
      if (!msg) return refuse(ctx, row, ev, 'NO_MATCHING_REQUEST');
      const outcome = e.name === 'turn_completed' ? 'completed' : 'terminal_failed';
      const updates = applyTurnOutcome(await listQueue(ctx.tx, row.id), msg.mainMessageId ?? msg.id, outcome);
      await applyStatusUpdates(ctx.tx, updates, { now: ctx.now, detail: e.name });
      await recordEvidence(ctx.tx, { sessionId: row.id, event: e.name, actor: 'agent', from: row.state, to: row.state, at: ctx.now,
        evidence: { seq: Number(ev.seq), nativeTurnId: e.payload.nativeTurnId, offset: e.payload.offset ?? null, messages: updates.length, outcome } });
      return;
    }
    case 'usage':
      await patchSession(ctx.tx, row.id, { usage: e.payload as object });
      return;
    case 'blocked_on_prompt':
      // Also while Starting: a CLI on a dialog (trust, permission, login) waits for the user on the
      // computer; the text is kept with the evidence so the session's page can say what it waits for.
      await recordEvidence(ctx.tx, { sessionId: row.id, event: 'blocked_on_prompt', actor: 'agent', from: row.state, to: row.state, evidence: { seq: Number(ev.seq), text: e.payload.text.slice(0, 1000) }, at: ctx.now });
      await notifyChats(ctx.tx, row, ctx.now, () => ({ key: `blocked:${row.id}:${ev.seq}`, payload: { kind: 'blocked_on_prompt', sessionId: row.id, nodeId: row.nodeId, text: e.payload.text } }));
      return;
    case 'evidence_unknown': {
      const m = (await listQueue(ctx.tx, row.id)).find((q) => q.id === e.payload.messageId);
      const to = m ? recheckStatus(m, { kind: 'no_evidence' }, e.payload.processAlive) : null;
      if (m && to) await applyStatusUpdates(ctx.tx, [{ id: m.id, from: m.status, to }], { now: ctx.now, detail: 'evidence_unknown' });
      return;
    }
    case 'discovery_diff':
      return;
    default:
      return e satisfies never;
  }
}

/**
 * A receipt: `leased → accepted` with the native turn / record id in one write, then `turn_started`.
 * False when the message is not leased (already accepted, or never handed over).
 */
export async function acceptTurn(ctx: StepContext, row: SessionRow, ev: StoredEvent,
  p: { messageId: string; nativeTurnId?: string | undefined; nativeRecordId?: string | undefined; offset?: number | undefined }): Promise<boolean> {
  const ok = await acceptReceipt(ctx.tx, { id: p.messageId, sessionId: row.id, now: ctx.now,
    ...(p.nativeTurnId ? { nativeTurnId: p.nativeTurnId } : {}), ...(p.nativeRecordId ? { nativeRecordId: p.nativeRecordId } : {}) });
  if (!ok) return false;
  await patchSession(ctx.tx, row.id, { userTurns: { increment: 1 }, nativeLastActivity: ctx.now });
  const r = await applyEvent(ctx, row.id, { type: 'turn_started', generation: row.observerGeneration }, 'agent', { seq: Number(ev.seq), messageId: p.messageId, offset: p.offset ?? null });
  if (!r.ok) await refuse(ctx, row, ev, r.refusal.code);
  return true;
}

/** While a final cannot be saved, later turn events wait and are replayed in order once it is. */
async function defer(ctx: StepContext, row: SessionRow, ev: StoredEvent): Promise<void> {
  await patchSession(ctx.tx, row.id, { deferredEventIds: { push: ev.id } });
}

/**
 * A dialog shown by a start's CLI is told even when the start's generation was superseded: the
 * retries a start takes while its computer is away (each a new generation) are answered by the agent
 * with that same CLI, which never shows its dialog again, so the user would otherwise never learn
 * what the session waits for. Only while the session still waits for a start, and only from an older
 * generation (a notice is information; it moves nothing). Events are handled in order, so a CLI ended
 * later has its own notice before any of its replacement.
 */
function dialogOfWaitingStart(row: SessionRow, generation: number | null): boolean {
  const waiting = row.state === 'Starting' || (row.state === 'AwaitingRecovery' && row.resumeState === 'Starting');
  return waiting && generation !== null && generation < row.observerGeneration;
}

async function refuse(ctx: StepContext, row: SessionRow, ev: StoredEvent, code: string): Promise<void> {
  ctx.log.info({ sessionId: row.id, nodeId: row.nodeId, seq: Number(ev.seq), type: ev.type, code }, 'engine.event_refused');
  await recordEvidence(ctx.tx, { sessionId: row.id, event: `refused:${ev.type}`, actor: 'agent', from: row.state, to: row.state, at: ctx.now,
    evidence: { seq: Number(ev.seq), code, generation: ev.generation, currentGeneration: row.observerGeneration } });
}

function warn(ctx: StepContext, ev: StoredEvent, reason: string): null {
  ctx.log.warn({ nodeId: ev.nodeId, seq: Number(ev.seq), type: ev.type, reason }, 'engine.event_dropped');
  return null;
}
