import { reportedTokens, type TokenCounts } from './usage-prices.ts';
import type { PromptEndCause, PromptEndOutcome } from './prompt-machine.ts';
import type { ReattachRefusal, SessionEvent, SessionState } from './session-types.ts';

/** The part of a CLI's identity the rules read; the rest is stored as the agent sent it. */
export type AgentIdentity = { nativeSessionId?: string | undefined; pid?: number | undefined; [key: string]: unknown };
type TurnEnd = { messageId?: string | undefined; nativeTurnId: string; offset?: number | undefined };

/**
 * A session-level agent event (discovery is node-level) as the engine parsed it
 * (`protocol/session-events.ts`), with the observer generation of its frame.
 */
export type AgentSessionEvent = { generation: number | null } & (
  | { name: 'session_ready' | 'reattached'; payload: { identity: AgentIdentity } }
  | { name: 'resume_confirmed'; payload: { identity?: AgentIdentity | undefined } }
  | { name: 'resume_failed'; payload: { reason: string; code?: string | undefined } }
  | { name: 'observer_lost'; payload: { reason?: string | undefined } }
  | { name: 'identity_mismatch'; payload: { reason: ReattachRefusal } }
  | { name: 'process_exited'; payload: { pids: number[]; exitStatus: number | null; paneDead: boolean; verified: boolean; journal?: string | undefined } }
  | {
      name: 'session_closed';
      payload: {
        evidence: Record<string, string | number | boolean | null> & { verified: boolean };
        archivedJournal?: { path: string; sizeBytes: number; sha256: string } | undefined;
      };
    }
  | {
      name: 'turn_accepted';
      payload: {
        messageId: string;
        nativeTurnId?: string | undefined;
        nativeRecordId?: string | undefined;
        offset?: number | undefined;
        identity?: AgentIdentity | undefined;
      };
    }
  | { name: 'turn_final'; payload: { messageId?: string | undefined; nativeTurnId: string; text: string } }
  | { name: 'turn_completed' | 'turn_api_error' | 'turn_interrupted'; payload: TurnEnd }
  | { name: 'usage'; payload: Record<string, unknown> }
  | { name: 'blocked_on_prompt'; payload: { text: string; dialog?: 'folder_trust' | undefined } }
  | { name: 'evidence_unknown'; payload: { messageId: string; processAlive: boolean } }
  | { name: 'permission_request'; payload: PromptAsked }
  | { name: 'permission_resolved'; payload: PromptEnd }
  | { name: 'activity'; payload: ActivityReport }
);

/** Live progress (`protocol/session-activity.ts`); the domain only routes it, it never changes a state. */
export interface ActivityReport {
  items: { ref: string; [k: string]: unknown }[];
  context?: { usedTokens: number; windowTokens?: number | undefined; compactions: number; [k: string]: unknown } | undefined;
}

/** A permission request or question the CLI asked through Bria's hook (times in ms since the epoch). */
export interface PromptAsked {
  requestId: string;
  kind: 'tool' | 'question' | 'dialog';
  toolName: string;
  toolInput: Record<string, unknown>;
  justification?: string | undefined;
  canAlwaysAllow: boolean;
  receivedAt: number;
  expiresAt: number;
}
/** How the agent saw a request end (`protocol/session-events.ts` zPermissionResolved). */
export interface PromptEnd {
  requestId: string;
  outcome: PromptEndOutcome;
  answerId?: string | undefined;
  at: number;
  evidence?: Record<string, unknown> | undefined;
}

/** What `interpret` needs to know of a session: the locked row's fields, nothing loaded beyond it. */
export interface AgentFactSnapshot {
  state: SessionState;
  resumeState: SessionState | null;
  observerGeneration: number;
  executor: 'claude' | 'codex';
  nativeSessionId: string | null;
  /** The pid of the stored identity (undefined when it names none). */
  identityPid: unknown;
  conversationMayExist: boolean;
  /** A final could not be saved yet (`pendingFinalEventId`): turn ends wait for it. */
  finalPending: boolean;
}

export type TurnEndKind = 'interrupted' | 'completed' | 'terminal_failed';

/**
 * What an agent event means for the session, as data the engine applies in order inside the event's
 * transaction. The engine does the reads these need (the queue, the matching message, the settings)
 * and stops at the first effect that cannot apply (a receipt for a message that is not leased).
 */
export type AgentEventEffect =
  /** Only a `refused:<event>` evidence row; nothing else changes. */
  | { type: 'refuse'; code: string }
  /** A fact for the state machine; `evidence` joins the transition's evidence row. */
  | { type: 'fact'; event: SessionEvent; evidence?: Record<string, unknown> }
  /** The resume is confirmed: the lifetime starts now, with the setting read now. */
  | { type: 'confirm_resume'; generation: number }
  /**
   * Store the identity the CLI reported and the native id to keep. `replaceIfNoConversation`: a Codex
   * CLI started again shows a new id, which replaces the stored one only when no conversation began
   * (the engine checks that on the queue; domain README, decision 7).
   */
  | { type: 'bind_identity'; identity?: AgentIdentity; nativeSessionId: string | null; replaceIfNoConversation?: string }
  | { type: 'patch'; fields: { identity?: AgentIdentity; nativeSessionId?: string; conversationMayExist?: true; usage?: Record<string, unknown> } }
  | { type: 'store_archive_copy'; copy: { path: string; sizeBytes: number; sha256: string } }
  /** One turn's tokens for the usage totals (`TurnUsage`) and the budgets. */
  | { type: 'record_usage'; tokens: TokenCounts; model: string | null; messageId: string | null }
  /** A receipt: `leased → accepted`, then `turn_started`; refused `NOT_LEASED` if the message is not leased. */
  | { type: 'accept_receipt'; messageId: string; nativeTurnId?: string; nativeRecordId?: string; offset?: number }
  /** While a final cannot be saved, the event waits and is replayed in order once it is. */
  | { type: 'defer' }
  | { type: 'write_final'; final: { messageId?: string; nativeTurnId: string; text: string } }
  /**
   * A turn ended: outcomes for its message(s) (`applyInterruptOutcome` / `applyTurnOutcome`), written
   * with `detail`. `confirmsStop`: the interrupt ends a Stopping / ClosingAfterWork session's stop.
   */
  | {
      type: 'turn_ended';
      event: 'turn_completed' | 'turn_api_error' | 'turn_interrupted';
      kind: TurnEndKind;
      detail: string;
      confirmsStop: boolean;
      messageId?: string;
      nativeTurnId: string;
      offset: number | null;
    }
  | { type: 'evidence'; event: string; evidence: Record<string, unknown> }
  | { type: 'notify_dialog'; text: string }
  | { type: 'recheck'; messageId: string; processAlive: boolean }
  /** A permission request / question to show with its choices (PermissionPrompt row + notices). */
  | { type: 'open_prompt'; prompt: PromptAsked }
  /** The agent's report of how a request ended (`promptEventOfEnd`, prompt-machine.ts). */
  | { type: 'resolve_prompt'; end: PromptEnd }
  /**
   * The CLI ended: no dialog of it can still be open. (A turn's end does the same in the engine, but
   * only when it moved its messages' outcomes: a turn end replayed after a re-attach, of a turn
   * already over, must not end the question the CLI asks now.)
   */
  | { type: 'end_prompts'; cause: PromptEndCause; onlyDialogs?: true }
  /** Live progress to store (SessionActivity rows, the session's current activity and context use). */
  | { type: 'record_activity'; activity: ActivityReport }
  /**
   * A start waits on a dialog the user may answer remotely (the agent recognised it): a prompt of
   * kind `dialog` with its choices (trust / cancel the start), for the CLI of `generation`.
   */
  | { type: 'open_dialog'; dialog: 'folder_trust'; text: string; generation: number };

/** The session waits for its CLI's first start: Starting, or recovering a start (never Ready yet). */
function waitingStart(s: Pick<AgentFactSnapshot, 'state' | 'resumeState'>): boolean {
  return s.state === 'Starting' || (s.state === 'AwaitingRecovery' && s.resumeState === 'Starting');
}

/**
 * A dialog shown by a start's CLI is told even when the start's generation was superseded: the
 * retries a start takes while its computer is away (each a new generation) are answered by the agent
 * with that same CLI, which never shows its dialog again, so the user would otherwise never learn
 * what the session waits for. Only while the session still waits for a start, and only from an older
 * generation (a notice is information; it moves nothing). Events are handled in order, so a CLI ended
 * later has its own notice before any of its replacement.
 */
export function dialogOfWaitingStart(s: Pick<AgentFactSnapshot, 'state' | 'resumeState' | 'observerGeneration'>, generation: number | null): boolean {
  return waitingStart(s) && generation !== null && generation < s.observerGeneration;
}

/**
 * What one session event of the agent means in the session's current state (pure). An event whose
 * generation is not the session's current observer generation is refused (`STALE_GENERATION`),
 * except a start's dialog (`dialogOfWaitingStart`).
 */
export function interpret(s: AgentFactSnapshot, e: AgentSessionEvent): AgentEventEffect[] {
  // How a request ended is a fact about that request, whatever CLI generation runs now.
  if (e.name === 'permission_resolved') return [{ type: 'resolve_prompt', end: e.payload }];
  // Progress is what the session's journal recorded, whichever CLI generation wrote it; it is display
  // only (never a state or a queue outcome), and a replay updates the same rows.
  if (e.name === 'activity') return [{ type: 'record_activity', activity: e.payload }];
  if (e.generation === null || e.generation !== s.observerGeneration) {
    if (!(e.name === 'blocked_on_prompt' && dialogOfWaitingStart(s, e.generation))) return [{ type: 'refuse', code: 'STALE_GENERATION' }];
  }
  const g = s.observerGeneration;
  const fact = (event: SessionEvent, evidence?: Record<string, unknown>): AgentEventEffect => ({ type: 'fact', event, ...(evidence ? { evidence } : {}) });
  switch (e.name) {
    case 'session_ready':
    case 'resume_confirmed':
    case 'reattached': {
      const identity = e.payload.identity;
      const reported = typeof identity?.nativeSessionId === 'string' ? identity.nativeSessionId : null;
      // A Codex CLI started again (its first one died before any message, so it never wrote a
      // rollout) shows a new id: the id shown by the dead one named nothing that exists, and is only
      // replaced when that is certain (domain README, decision 7). Otherwise the stored id is kept.
      // The new id may first arrive with a re-attach: the start's own `session_ready` can be refused
      // as stale when starts queued while the node was away all run on its return.
      const replace =
        e.name !== 'resume_confirmed' && s.executor === 'codex' && s.nativeSessionId !== null && reported !== null && reported !== s.nativeSessionId;
      const bind: AgentEventEffect = {
        type: 'bind_identity',
        ...(identity ? { identity } : {}),
        nativeSessionId: s.nativeSessionId ?? reported,
        ...(replace && reported ? { replaceIfNoConversation: reported } : {}),
      };
      if (s.state === 'AwaitingRecovery') {
        // The agent reports an identity only once the CLI has finished starting, so a session that
        // lost its binding while Starting is ready now: its own session_ready was refused as stale.
        return [
          bind,
          fact({ type: 'reattached', generation: g, mode: e.name === 'reattached' ? 'observer' : 'exact_resume' }),
          // A start that reached its prompt: its dialog (offered as a prompt) is over.
          ...(s.resumeState === 'Starting' && identity
            ? [{ type: 'end_prompts', cause: 'cli_ready', onlyDialogs: true } as const, fact({ type: 'cli_ready', generation: g })]
            : []),
        ];
      }
      if (e.name === 'session_ready' && s.state !== 'Resuming')
        return [bind, ...(s.state === 'Starting' ? [{ type: 'end_prompts', cause: 'cli_ready' } as const] : []), fact({ type: 'cli_ready', generation: g })];
      // A resumed CLI reporting ready is the resume confirmation.
      if (e.name === 'resume_confirmed' || e.name === 'session_ready') return [bind, { type: 'confirm_resume', generation: g }];
      return [bind, fact({ type: 'reattached', generation: g, mode: 'observer' })];
    }
    case 'resume_failed':
      // `conversation_may_exist`: the agent knows better than the queue that something may have
      // reached the CLI. Recovery re-attaches and then resumes exactly from now on; asking for a
      // start again would only be refused once more.
      return [
        ...(e.payload.code === 'conversation_may_exist' && !s.conversationMayExist ? [{ type: 'patch', fields: { conversationMayExist: true } } as const] : []),
        fact(
          { type: 'resume_failed', generation: g, cause: e.payload.reason },
          { cause: e.payload.reason.slice(0, 300), ...(e.payload.code ? { code: e.payload.code } : {}) },
        ),
      ];
    case 'observer_lost':
      return [fact({ type: 'observer_lost', generation: g })];
    case 'identity_mismatch':
      return [fact({ type: 'reattach_refused', generation: g, reason: e.payload.reason })];
    case 'process_exited': {
      const evidence = {
        pids: e.payload.pids.join(','),
        exitStatus: e.payload.exitStatus,
        paneDead: e.payload.paneDead,
        verified: e.payload.verified,
        ...(e.payload.journal ? { journal: e.payload.journal } : {}),
      };
      // Observer EOF or an unverified exit proves nothing about the CLI: only the binding is lost.
      return [
        ...(e.payload.verified ? [{ type: 'end_prompts', cause: 'process_exited' } as const] : []),
        fact({ type: e.payload.verified ? 'process_exited_verified' : 'observer_lost', generation: g, evidence }),
      ];
    }
    case 'session_closed': {
      // The close evidence says what became of the journal: `archived` / `archived_empty` (an
      // ArchiveCopy row), `none` (the CLI never wrote one: closed before any message, so the session
      // is archived without a copy — domain README, decision 15), `missing` or `present` (not
      // archived), `unreported` (an agent from before this field).
      const said = e.payload.evidence.journal;
      const journal = typeof said === 'string' ? said.slice(0, 32) : e.payload.archivedJournal ? 'archived' : 'unreported';
      return [
        ...(e.payload.evidence.verified ? [{ type: 'end_prompts', cause: 'session_closed' } as const] : []),
        ...(e.payload.archivedJournal ? [{ type: 'store_archive_copy', copy: e.payload.archivedJournal } as const] : []),
        fact({ type: e.payload.evidence.verified ? 'process_exited_verified' : 'observer_lost', generation: g, evidence: { ...e.payload.evidence, journal } }),
      ];
    }
    case 'turn_accepted': {
      // The identity learned with the receipt (a Codex rollout path), for the same native session and
      // the same process only: a replayed receipt must never put back the identity of a dead CLI.
      const { identity: id, messageId, nativeTurnId, nativeRecordId, offset } = e.payload;
      const idNative = typeof id?.nativeSessionId === 'string' ? id.nativeSessionId : null;
      const sameProcess = s.identityPid === undefined || s.identityPid === id?.pid;
      const learn = id && sameProcess && (!s.nativeSessionId || !idNative || idNative === s.nativeSessionId);
      return [
        ...(learn ? [{ type: 'patch', fields: { identity: id, ...(s.nativeSessionId ? {} : idNative ? { nativeSessionId: idNative } : {}) } } as const] : []),
        {
          type: 'accept_receipt',
          messageId,
          ...(nativeTurnId ? { nativeTurnId } : {}),
          ...(nativeRecordId ? { nativeRecordId } : {}),
          ...(offset !== undefined ? { offset } : {}),
        },
      ];
    }
    case 'turn_final':
      if (s.finalPending) return [{ type: 'defer' }];
      return [
        {
          type: 'write_final',
          final: { ...(e.payload.messageId ? { messageId: e.payload.messageId } : {}), nativeTurnId: e.payload.nativeTurnId, text: e.payload.text },
        },
      ];
    case 'turn_completed':
    case 'turn_api_error':
    case 'turn_interrupted': {
      if (s.finalPending) return [{ type: 'defer' }];
      const stopping = s.state === 'Stopping' || s.state === 'ClosingAfterWork';
      const interrupted = e.name === 'turn_interrupted';
      return [
        {
          type: 'turn_ended',
          event: e.name,
          kind: interrupted ? 'interrupted' : e.name === 'turn_completed' ? 'completed' : 'terminal_failed',
          // A turn ended by the user's Stop keeps the stop's own detail ('interrupted'), so the chat and
          // the page say "stopped"; one ended on the computer says the CLI interrupted it.
          detail: interrupted && stopping ? 'interrupted' : e.name,
          confirmsStop: interrupted && stopping,
          ...(e.payload.messageId ? { messageId: e.payload.messageId } : {}),
          nativeTurnId: e.payload.nativeTurnId,
          offset: e.payload.offset ?? null,
        },
      ];
    }
    case 'usage':
      // The latest report stays on the session (its page shows it); each one is also kept as the
      // turn's tokens, whatever the generation: the tokens were spent either way.
      return [
        { type: 'patch', fields: { usage: e.payload } },
        {
          type: 'record_usage',
          tokens: reportedTokens(e.payload),
          model: typeof e.payload.model === 'string' ? e.payload.model : null,
          messageId: typeof e.payload.messageId === 'string' ? e.payload.messageId : null,
        },
      ];
    case 'blocked_on_prompt':
      // Also while Starting: a CLI on a dialog (trust, permission, login) waits for the user on the
      // computer; the text is kept with the evidence so the session's page can say what it waits for.
      return [
        { type: 'evidence', event: 'blocked_on_prompt', evidence: { text: e.payload.text.slice(0, 1000) } },
        { type: 'notify_dialog', text: e.payload.text },
        // A start that waits: Starting, or a recovery that is starting the CLI again (the retried
        // start's CLI shows its trust dialog under the current generation, and without a prompt
        // nobody could answer it from afar; docs/reliability.md).
        ...(e.payload.dialog === 'folder_trust' && e.generation !== null && (waitingStart(s) || dialogOfWaitingStart(s, e.generation))
          ? [{ type: 'open_dialog', dialog: 'folder_trust', text: e.payload.text.slice(0, 4000), generation: e.generation } as const]
          : []),
      ];
    case 'evidence_unknown':
      return [{ type: 'recheck', messageId: e.payload.messageId, processAlive: e.payload.processAlive }];
    case 'permission_request':
      return [{ type: 'open_prompt', prompt: e.payload }];
    default:
      return e satisfies never;
  }
}
