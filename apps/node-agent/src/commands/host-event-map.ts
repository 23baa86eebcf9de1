import type { HostEvent, SessionIdentity } from '../executors/index.ts';
import type { SessionRecord } from './registry.ts';

/** One protocol event the agent sends for a session (payloads per `protocol/session-events.ts`). */
export interface OutEvent { event: string; payload: Record<string, unknown> }

/** Identity as the hub stores it: the protocol's fields plus the full adapter identity for exact attach. */
export function reportIdentity(id: SessionIdentity): Record<string, unknown> {
  return {
    nativeSessionId: id.nativeId || undefined,
    tmuxSocket: id.tmuxSocket,
    tmuxPane: id.paneId,
    pid: id.cliPid,
    pidStartTime: id.cliStartTime,
    ...(id.journalPath ? { journalPath: id.journalPath } : {}),
    host: { ...id },
  };
}

/** Reads the adapter identity back from what the hub stored (for an agent that lost its own record). */
export function identityFromReport(reported: Record<string, unknown>): SessionIdentity | null {
  const h = reported.host as Partial<SessionIdentity> | undefined;
  if (!h || typeof h.paneId !== 'string' || typeof h.cliPid !== 'number' || typeof h.nativeId !== 'string') return null;
  return h as SessionIdentity;
}

const offsetOf = (e: { evidence: Record<string, unknown> }) => (typeof e.evidence.offset === 'number' ? { offset: e.evidence.offset } : {});

/**
 * Maps one adapter event to what the hub consumes. `ready` and the expected `exited` of a close are
 * reported by the command handlers, which know whether it was a start, a resume, an attach or a close.
 */
export function mapHostEvent(rec: SessionRecord, e: HostEvent): OutEvent[] {
  const turn = (messageId: string | null) => (messageId ? rec.turns.find((t) => t.messageId === messageId) : undefined);
  switch (e.type) {
    case 'ready':
      return [];
    case 'accepted':
      return [{ event: 'turn_accepted', payload: {
        messageId: e.messageId, ...(rec.executor === 'codex' ? { nativeTurnId: e.nativeRef } : { nativeRecordId: e.nativeRef }), ...offsetOf(e),
      } }];
    case 'final': {
      const t = turn(e.messageId);
      return t ? [{ event: 'turn_final', payload: { messageId: e.messageId, nativeTurnId: t.nativeRef, text: e.text } }] : [];
    }
    case 'completed':
    case 'interrupted':
    case 'api_error': {
      const t = turn(e.messageId);
      if (!t) return [];
      const name = e.type === 'completed' ? 'turn_completed' : e.type === 'interrupted' ? 'turn_interrupted' : 'turn_api_error';
      const extra = e.type === 'api_error' ? { error: e.errorText.slice(0, 500) } : {};
      return [{ event: name, payload: { messageId: t.messageId, nativeTurnId: t.nativeRef, ...offsetOf(e), ...extra } }];
    }
    case 'usage':
      return [{ event: 'usage', payload: { inputTokens: e.usage.inputTokens, outputTokens: e.usage.outputTokens, cachedInputTokens: e.usage.cachedInputTokens } }];
    case 'exited':
      if (e.expected) return [];
      // Verified only when the pane is dead and no process of the tree is left; an observer's EOF is not.
      return [{ event: 'process_exited', payload: {
        pids: e.pids.slice(0, 64), exitStatus: e.exitStatus, paneDead: e.paneDead,
        verified: e.paneDead && Array.isArray(e.evidence.stillAlive) && e.evidence.stillAlive.length === 0,
      } }];
    case 'blocked_on_prompt':
      return [{ event: 'blocked_on_prompt', payload: { text: e.promptText.slice(0, 4000) } }];
    case 'unknown':
      return e.messageId ? [{ event: 'evidence_unknown', payload: { messageId: e.messageId, processAlive: true } }] : [];
    default:
      return e satisfies never;
  }
}
