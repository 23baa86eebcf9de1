import type { SessionEvent, SessionState } from './session-types.ts';

/**
 * A command's answer (a `command_result` event) as the engine parsed it (`protocol/command-results.ts`
 * `parseCommandResult`): the fields the rules read. `code` is set on every answer that is not `ok`.
 */
export type CommandAnswerFacts =
  | {
      kind: 'deliver';
      ok?: boolean | undefined;
      code?: string | undefined;
      interrupted?: boolean | undefined;
      typed?: boolean | undefined;
      delivery?: 'accepted' | 'not_typed' | 'unknown' | undefined;
      messageId?: string | undefined;
      nativeRef?: string | undefined;
    }
  | {
      kind: 'launch';
      /** `adopt_in_place` answers like a resume (it is one, without a new CLI). */
      command: 'start_session' | 'resume_session' | 'adopt_in_place';
      ok?: boolean | undefined;
      code?: string | undefined;
      error?: string | undefined;
      interrupted?: boolean | undefined;
      exited?: boolean | undefined;
      journal?: string | undefined;
    }
  | { kind: 'other'; command: string; ok?: boolean | undefined; code?: string | undefined; interrupted?: boolean | undefined };

/**
 * What the engine must load before `interpretCommandResult`, decided from the answer alone, so an
 * answer that changes nothing (every `ok` hand-over) locks and reads nothing:
 * - `null`: the answer changes nothing;
 * - `untyped`: a `deliver` answered `typed: false`, handled by the engine's `typed: false` hold
 *   (`engine/untyped-delivery.ts`, its wait from `untypedWait`);
 * - otherwise the session (only one of the answering node) and, when asked, the generation the
 *   command was issued under (from its stored row, never from the answer) and whether the answer's
 *   message is still leased by this exact command.
 */
export type CommandAnswerReads = null | 'untyped' | { commandGeneration: boolean; leasedMessage: boolean };

/** The session as locked for the answer, with what `commandResultReads` asked to load. */
export interface CommandFactSnapshot {
  state: SessionState;
  resumeState: SessionState | null;
  observerGeneration: number;
  executor: 'claude' | 'codex';
  /** The command the answer is for (the event's `commandId`). */
  commandId: string | null;
  /** The generation the command was issued under; null when not read or not stored. */
  commandGeneration: number | null;
  /** The answer's message when it is still `leased` by this command (`deliveryId`), else null. */
  leasedMessageId: string | null;
}

/** Why a fact is raised, so the engine can say which rule a refused fact came from. */
export type CommandFactWhy = 'close_interrupted' | 'launch_interrupted' | 'resume_refused';

/**
 * What a command's answer means, as data the engine applies in order inside the event's transaction.
 * Every effect is bound to the exact command (its id, the message it leased, its generation), so an
 * answer that arrives twice changes nothing the second time.
 */
export type CommandResultEffect =
  /** Evidence row (the engine adds the event's `seq`). */
  | { type: 'evidence'; event: 'delivery_unknown' | 'command_interrupted'; evidence: Record<string, unknown> }
  /** The message's outcome: `leased → unknown` (never handed over again), written with `detail`. */
  | { type: 'message_unknown'; messageId: string; detail: 'delivery_interrupted' | 'no_receipt' }
  /** The receipt the agent bound before it died: `leased → accepted`, then `turn_started`. */
  | { type: 'accept_receipt'; messageId: string; nativeTurnId?: string; nativeRecordId?: string }
  /** A fact for the state machine, raised as `actor`; `evidence` joins the transition's evidence row. */
  | { type: 'fact'; event: SessionEvent; actor: 'agent' | 'hub'; why: CommandFactWhy; evidence?: Record<string, unknown> };

/** A deliver answered `unknown`: no receipt in time, or the agent died between the paste and the receipt. */
const deliveryUnknown = (r: { delivery?: string | undefined }) => r.delivery === 'unknown';
/** A deliver cut short by an agent restart whose receipt the agent had bound. */
const interruptedReceipt = (r: { delivery?: string | undefined; interrupted?: boolean | undefined }) => r.delivery === 'accepted' && r.interrupted === true;

/**
 * Whether a failed resume answer is a refusal the session's attempt must end on. Not for a stale
 * generation (the attempt it belonged to is over), a start left on a dialog (bounded by the resume's
 * own timer) nor an interrupted one (see `interpretCommandResult`).
 */
export function resumeRefusal(r: CommandAnswerFacts): boolean {
  if (r.kind !== 'launch' || r.command === 'start_session' || r.ok !== false || r.interrupted === true) return false;
  switch (r.code) {
    case 'stale_generation':
    case 'blocked':
    case 'interrupted':
      return false;
    default:
      return true;
  }
}

/** What to load for an answer (pure; see `CommandAnswerReads`). `commandId`: the event's. */
export function commandResultReads(r: CommandAnswerFacts, commandId: string | null): CommandAnswerReads {
  if (r.kind === 'deliver') {
    if (r.typed === false) return 'untyped';
    if (deliveryUnknown(r) || interruptedReceipt(r)) return { commandGeneration: false, leasedMessage: true };
    return null;
  }
  if (resumeRefusal(r)) return commandId ? { commandGeneration: true, leasedMessage: false } : null;
  if (r.interrupted !== true || !commandId) return null;
  return { commandGeneration: r.kind === 'launch', leasedMessage: false };
}

/**
 * What a command's answer means for the session and its message (pure), once the engine loaded what
 * `commandResultReads` asked for. Session facts travel as their own events; this covers what only the
 * answer can tell:
 * - `deliver` `unknown`: the message still leased by this command becomes `unknown` and the queue
 *   moves on;
 * - `deliver` `accepted` after an interruption: the receipt the agent bound before it died is applied
 *   if its own `turn_accepted` was not (refused as stale, say); a receipt id over 200 characters is
 *   not one;
 * - a `resume_session` the agent refused without a `resume_failed` fact (a payload it could not read,
 *   an unsupported command): the resume fails at once with the agent's answer as its cause. When the
 *   agent also sent `resume_failed` (every refusal it decides itself), that fact came first (events
 *   are handled in seq order) and the session has left the attempt, so nothing happens; only for the
 *   exact attempt (the command's generation must still be the session's);
 * - any other interrupted command (the agent restarted while running it; never run twice): evidence,
 *   then an interrupted `close_session` while Closing is asked for again (as when a node returns), and
 *   an interrupted `start_session` / `resume_session` whose never-confirmed CLI the agent ended is a
 *   verified exit of the session's process when it was the current attempt (recovery takes over).
 */
export function interpretCommandResult(s: CommandFactSnapshot, r: CommandAnswerFacts): CommandResultEffect[] {
  if (r.kind === 'deliver') {
    if (r.typed === false || s.leasedMessageId === null) return [];
    const messageId = s.leasedMessageId;
    if (deliveryUnknown(r)) {
      const interrupted = r.interrupted === true;
      return [
        { type: 'message_unknown', messageId, detail: interrupted ? 'delivery_interrupted' : 'no_receipt' },
        { type: 'evidence', event: 'delivery_unknown', evidence: { messageId, commandId: s.commandId, interrupted } },
      ];
    }
    if (!interruptedReceipt(r) || r.nativeRef === undefined || r.nativeRef.length === 0 || r.nativeRef.length > 200) return [];
    return [{ type: 'accept_receipt', messageId, ...(s.executor === 'codex' ? { nativeTurnId: r.nativeRef } : { nativeRecordId: r.nativeRef }) }];
  }
  const current = s.commandGeneration === s.observerGeneration;
  if (resumeRefusal(r)) {
    const attempt = s.state === 'Resuming' || (s.state === 'AwaitingRecovery' && s.resumeState === 'Resuming');
    if (!attempt || !current || r.kind !== 'launch') return [];
    const cause = `the computer refused the resume: ${r.error ? r.error : 'no reason given'}`.slice(0, 500);
    return [
      {
        type: 'fact',
        event: { type: 'resume_failed', generation: s.observerGeneration, cause },
        actor: 'agent',
        why: 'resume_refused',
        evidence: { commandId: s.commandId },
      },
    ];
  }
  if (r.interrupted !== true || s.commandId === null) return [];
  return [
    { type: 'evidence', event: 'command_interrupted', evidence: { command: String(r.command).slice(0, 32), commandId: s.commandId } },
    ...(r.command === 'close_session' && s.state === 'Closing'
      ? [{ type: 'fact', event: { type: 'node_returned', evidence: { reason: 'close_interrupted' } }, actor: 'hub', why: 'close_interrupted' } as const]
      : []),
    ...(r.kind === 'launch' && r.exited === true && current
      ? [
          {
            type: 'fact',
            event: {
              type: 'process_exited_verified',
              generation: s.observerGeneration,
              evidence: { reason: `${r.command}_interrupted`, ...(r.journal ? { journal: r.journal } : {}) },
            },
            actor: 'agent',
            why: 'launch_interrupted',
          } as const,
        ]
      : []),
  ];
}
