import type { SessionEventInput, SessionEventOut } from '@bria/core/protocol';
import type { HostEvent, SessionIdentity } from '../executors/index.ts';
import { folderTrustDialog } from '../executors/screen.ts';
import type { SessionRecord } from './registry.ts';

/**
 * One protocol event the agent sends for a session: the name and its payload checked by the
 * compiler. A payload without an `identity` field says it has none (`identity?: undefined`), so code
 * that strips the identity from any event before keeping it (the replay record) still compiles.
 */
export type OutEvent = IdentitySlot<SessionEventOut>;
type IdentitySlot<E> = E extends { payload: infer P } ? ('identity' extends keyof P ? E : E & { payload: { identity?: undefined } }) : never;

/** The identity as it travels in `session_ready`, `reattached`, `turn_accepted`, … */
export type ReportedIdentity = SessionEventInput<'session_ready'>['identity'];

/** Identity as the hub stores it: the protocol's fields plus the full adapter identity for exact attach. */
export function reportIdentity(id: SessionIdentity): ReportedIdentity {
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
      return [
        {
          event: 'turn_accepted',
          payload: {
            messageId: e.messageId,
            ...(rec.executor === 'codex' ? { nativeTurnId: e.nativeRef } : { nativeRecordId: e.nativeRef }),
            ...offsetOf(e),
          },
        },
      ];
    case 'final': {
      const t = turn(e.messageId);
      return t ? [{ event: 'turn_final', payload: { messageId: e.messageId, nativeTurnId: t.nativeRef, text: e.text } }] : [];
    }
    case 'completed':
    case 'interrupted':
    case 'api_error': {
      const t = turn(e.messageId);
      if (!t) return [];
      const end = { messageId: t.messageId, nativeTurnId: t.nativeRef, ...offsetOf(e) };
      if (e.type === 'api_error') return [{ event: 'turn_api_error', payload: { ...end, error: e.errorText.slice(0, 500) } }];
      return [{ event: e.type === 'completed' ? 'turn_completed' : 'turn_interrupted', payload: end }];
    }
    case 'usage': {
      const t = turn(e.messageId);
      const u = e.usage;
      return [
        {
          event: 'usage',
          payload: {
            messageId: e.messageId,
            ...(t ? { nativeTurnId: t.nativeRef } : {}),
            ...(u.model ? { model: u.model.slice(0, 100) } : {}),
            inputTokens: u.inputTokens,
            outputTokens: u.outputTokens,
            cacheReadTokens: u.cacheReadTokens,
            cacheWriteTokens: u.cacheWriteTokens,
          },
        },
      ];
    }
    case 'limit':
      return [{ event: 'limit_state', payload: { executor: rec.executor, ...e.limit, ...(e.limit.text ? { text: e.limit.text.slice(0, 300) } : {}) } }];
    case 'activity':
      return [{ event: 'activity', payload: e.activity }];
    case 'exited':
      if (e.expected) return [];
      // Verified only when the pane is dead and no process of the tree is left; an observer's EOF is not.
      return [
        {
          event: 'process_exited',
          payload: {
            pids: e.pids.slice(0, 64),
            exitStatus: e.exitStatus,
            paneDead: e.paneDead,
            verified: e.paneDead && Array.isArray(e.evidence.stillAlive) && e.evidence.stillAlive.length === 0,
          },
        },
      ];
    case 'blocked_on_prompt':
      return [
        {
          event: 'blocked_on_prompt',
          payload: { text: e.promptText.slice(0, 4000), ...(folderTrustDialog(e.promptText) ? { dialog: 'folder_trust' as const } : {}) },
        },
      ];
    case 'unknown':
      return e.messageId ? [{ event: 'evidence_unknown', payload: { messageId: e.messageId, processAlive: true } }] : [];
    default:
      return e satisfies never;
  }
}
