import { DEFAULT_LIFETIME, deadlineFrom, isLifetimeDue, type LifetimeSetting } from './lifetime.ts';
import { hasAcceptedWork } from './queue.ts';
import { plan } from './session-effects.ts';
import { type BranchGuard, branchesOf, ruleFor, SESSION_TABLE } from './session-table.ts';
import {
  AGENT_FACT_TYPES,
  INTENT_TYPES,
  type SessionEffect,
  type SessionEvent,
  type SessionEventType,
  type SessionSnapshot,
  type SessionState,
} from './session-types.ts';

export * from './session-types.ts';
export { SESSION_TABLE } from './session-table.ts';

export type RefusalCode =
  | 'ILLEGAL_TRANSITION'
  | 'GUARD_REJECTED'
  /** An agent fact from a superseded observer generation. */
  | 'STALE_GENERATION'
  /** A button drawn for an older version of the card. */
  | 'STALE_BUTTON'
  /** A timer that no longer matches the session (e.g. lifetime not actually due). */
  | 'STALE_TIMER';

export interface TransitionRefusal {
  code: RefusalCode;
  state: SessionState;
  event: SessionEventType;
  /** For GUARD_REJECTED: the guards that did not hold. */
  guards?: readonly string[];
}

export type TransitionResult = { ok: true; next: SessionSnapshot; effects: SessionEffect[] } | { ok: false; refusal: TransitionRefusal };

export interface TransitionOptions {
  /** Random number in [0, 1) for backoff jitter; 0.5 means none. */
  jitter?: number;
}

const agentFacts: ReadonlySet<string> = new Set(AGENT_FACT_TYPES);
const intents: ReadonlySet<string> = new Set(INTENT_TYPES);

const BRANCH_GUARDS: Record<BranchGuard, (s: SessionSnapshot) => boolean> = {
  hasAcceptedWork: (s) => hasAcceptedWork(s.queue),
  expiredAndIdle: (s) => s.lifetimeExpired && !s.queue.inFlight && !s.queue.waiting,
  exitVerified: (s) => s.exitVerified,
  noWorkInFlight: (s) => !s.queue.inFlight,
  wasResuming: (s) => s.resumeState === 'Resuming',
};

/**
 * The one pure transition function: looks the pair up in SESSION_TABLE, checks that the event is
 * current (generation, card version, timer), picks the guarded branch and plans effects as data.
 */
export function transition(snapshot: SessionSnapshot, event: SessionEvent, now: Date, options: TransitionOptions = {}): TransitionResult {
  const refuse = (code: RefusalCode, guards?: string[]): TransitionResult => ({
    ok: false,
    refusal: { code, state: snapshot.state, event: event.type, ...(guards ? { guards } : {}) },
  });
  const rule = ruleFor(snapshot.state, event.type);
  if (rule === undefined) return refuse('ILLEGAL_TRANSITION');

  if (agentFacts.has(event.type) && 'generation' in event && event.generation !== snapshot.observerGeneration) {
    return refuse('STALE_GENERATION');
  }
  if (intents.has(event.type) && 'cardVersion' in event && event.cardVersion !== undefined && event.cardVersion !== snapshot.version) {
    return refuse('STALE_BUTTON');
  }
  if (event.type === 'lifetime_expired' && !isLifetimeDue(snapshot.lifetimeDeadline, now)) return refuse('STALE_TIMER');
  // "An executor-finished notice alone does not open the queue": drained means no in-flight message.
  if (event.type === 'work_drained' && snapshot.queue.inFlight) return refuse('GUARD_REJECTED', ['queueDrained']);

  const branches = branchesOf(rule);
  const chosen = branches.find((b) => b.when === undefined || BRANCH_GUARDS[b.when](snapshot));
  if (!chosen)
    return refuse(
      'GUARD_REJECTED',
      branches.flatMap((b) => (b.when ? [b.when] : [])),
    );

  let to: SessionState;
  if (chosen.to === 'previous') {
    if (snapshot.resumeState === null) return refuse('GUARD_REJECTED', ['hasResumeState']);
    to = snapshot.resumeState;
  } else {
    to = chosen.to;
  }
  const { next, effects } = plan({ from: snapshot, to, event, now, jitter: options.jitter ?? 0.5 });
  return { ok: true, next, effects };
}

export interface NewSessionInput {
  now: Date;
  lifetime?: LifetimeSetting;
  /** Claude sessions get their id up front; a new Codex session learns it after start. */
  hasNativeId: boolean;
}

/** A session being created: Starting, start command sent, lifetime counted from creation. */
export function newSession({ now, lifetime = DEFAULT_LIFETIME, hasNativeId }: NewSessionInput): {
  snapshot: SessionSnapshot;
  effects: SessionEffect[];
} {
  const deadline = deadlineFrom(now, lifetime);
  const snapshot: SessionSnapshot = {
    state: 'Starting',
    version: 0,
    resumeState: null,
    observerGeneration: 1,
    hasNativeId,
    lifetimeDeadline: deadline,
    lifetimeExpired: false,
    exitVerified: false,
    queue: { inFlight: false, waiting: false },
  };
  const effects: SessionEffect[] = [{ type: 'send_command', kind: 'start', generation: 1 }];
  if (deadline) effects.push({ type: 'schedule', timer: 'lifetime', at: deadline });
  return { snapshot, effects };
}

/** SPEC §2 "Accepts new messages": `queue` = stored and held until the process can take it. */
const ACCEPTS: Record<SessionState, 'yes' | 'queue' | 'no'> = {
  Starting: 'queue',
  Resuming: 'queue',
  Ready: 'yes',
  Running: 'yes',
  Stopping: 'queue',
  ClosingAfterWork: 'no',
  AwaitingRecovery: 'queue',
  Closing: 'no',
  Archived: 'no',
  ResumeFailed: 'no',
};

export type AcceptDecision =
  | { ok: true; delivery: 'gated' | 'held_until_ready' }
  | { ok: false; code: 'LIFETIME_EXPIRED' | 'SESSION_NOT_ACCEPTING'; state: SessionState };

/**
 * May a new user message be stored for this session? After expiry nothing new is stored (the
 * refused input never enters the queue); ClosingAfterWork exists only because of expiry.
 */
export function canAcceptMessage(snapshot: SessionSnapshot): AcceptDecision {
  const accepts = ACCEPTS[snapshot.state];
  if (accepts !== 'no' && snapshot.lifetimeExpired) return { ok: false, code: 'LIFETIME_EXPIRED', state: snapshot.state };
  switch (accepts) {
    case 'yes':
      return { ok: true, delivery: 'gated' };
    case 'queue':
      return { ok: true, delivery: 'held_until_ready' };
    case 'no':
      return {
        ok: false,
        code: snapshot.state === 'ClosingAfterWork' ? 'LIFETIME_EXPIRED' : 'SESSION_NOT_ACCEPTING',
        state: snapshot.state,
      };
    default:
      return accepts satisfies never;
  }
}

/** All table entries as (from, event, to) triples, for the diagram and its test. */
export function tableEdges(): { from: SessionState; event: SessionEventType; to: string; guard?: string }[] {
  const edges: { from: SessionState; event: SessionEventType; to: string; guard?: string }[] = [];
  for (const [from, row] of Object.entries(SESSION_TABLE) as [SessionState, Record<string, unknown>][]) {
    for (const event of Object.keys(row) as SessionEventType[]) {
      const rule = ruleFor(from, event);
      if (rule === undefined) continue;
      const branches = branchesOf(rule);
      for (const b of branches) {
        const guard = b.when ?? (branches.length > 1 ? 'else' : undefined);
        edges.push({ from, event, to: b.to, ...(guard ? { guard } : {}) });
      }
    }
  }
  return edges;
}
