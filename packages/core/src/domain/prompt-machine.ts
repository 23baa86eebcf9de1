/**
 * A permission request, question or start dialog the CLI asked (a `PermissionPrompt` row), as the
 * hub knows it: its states, the one table of its moves, and the rules every end shares (services,
 * engine, web, bot, and the agent through `@bria/core/protocol`). Pure, and it imports nothing: the
 * protocol re-exports it for the agent.
 */

/**
 * `pending` waits for the user; `answered` = an answer won and is on its way to the CLI;
 * `delivered` = the agent handed that answer to the hook; `waiting_at_computer` = the bound passed
 * (or the user left it to the computer, or the agent restarted): the CLI's own dialog is what is
 * left; `answered_at_computer` = the hook ended without Bria's answer; `ended` = the turn, the CLI,
 * the start or the user's Stop ended it.
 */
export const PROMPT_STATES = ['pending', 'answered', 'delivered', 'waiting_at_computer', 'answered_at_computer', 'ended'] as const;
export type PromptState = (typeof PROMPT_STATES)[number];

/**
 * What moves a prompt. `answered`: the user's answer won (the first answer wins). The agent's report
 * of the request's end (`permission_resolved`, `promptEventOfEnd`): `answer_delivered` (the hook got
 * this row's answer), `hook_gone` (the hook ended without it), `expired` (the bound passed, or the
 * agent restarted without its hook). What ends every open prompt of a session: `turn_ended`,
 * `cli_exited`, `cli_ready` (a start's dialog is over), `superseded` (a newer start dialog),
 * `stop_requested` (the user's Stop: the CLI's interrupt key refuses the dialog), `archived`.
 */
export const PROMPT_EVENTS = [
  'answered',
  'answer_delivered',
  'hook_gone',
  'expired',
  'turn_ended',
  'cli_exited',
  'cli_ready',
  'superseded',
  'stop_requested',
  'archived',
] as const;
export type PromptEvent = (typeof PROMPT_EVENTS)[number];

/** Every reason the session's open prompts end at once: from any state whose dialog may be open. */
const END = { turn_ended: 'ended', cli_exited: 'ended', cli_ready: 'ended', superseded: 'ended', stop_requested: 'ended', archived: 'ended' } as const;

/**
 * The whole life of a prompt. A (state, event) pair that is not listed is not a move: the row stays
 * as it is (a report of an end that already happened, an answer that came second). `delivered`,
 * `answered_at_computer` and `ended` are final.
 */
export const PROMPT_TABLE = {
  pending: { answered: 'answered', answer_delivered: 'delivered', hook_gone: 'answered_at_computer', expired: 'waiting_at_computer', ...END },
  answered: { answer_delivered: 'delivered', hook_gone: 'answered_at_computer', expired: 'waiting_at_computer', ...END },
  delivered: {},
  // The question waits at the computer already: a second bound or restart changes nothing.
  waiting_at_computer: { answer_delivered: 'delivered', hook_gone: 'answered_at_computer', ...END },
  answered_at_computer: {},
  ended: {},
} as const satisfies Record<PromptState, Partial<Record<PromptEvent, PromptState>>>;

/** Where `event` takes a prompt in `state`, or null when the table lists no such move (pure). */
export function promptTransition(state: PromptState, event: PromptEvent): PromptState | null {
  const row: Partial<Record<PromptEvent, PromptState>> = PROMPT_TABLE[state];
  return row[event] ?? null;
}

/** The states `event` moves a prompt out of (the `where` of a repository's compare-and-set). */
export function promptStatesFor(event: PromptEvent): PromptState[] {
  return PROMPT_STATES.filter((s) => promptTransition(s, event) !== null);
}

/**
 * The one state `event` leads to from every state it leaves (each event of the table has one target;
 * a repository moves many rows by one event with a single compare-and-set write).
 */
export function promptTargetOf(event: PromptEvent): PromptState {
  const targets = new Set(PROMPT_STATES.map((s) => promptTransition(s, event)).filter((t) => t !== null));
  const [to] = targets;
  if (targets.size !== 1 || to === undefined) throw new Error(`prompt event ${event} has ${targets.size} targets`);
  return to;
}

/** States whose CLI dialog may still be open: the queue holds while a prompt is in one (`Session.openPrompts`). */
export const OPEN_PROMPT_STATES: readonly PromptState[] = promptStatesFor('turn_ended');

/** States with no way out: the prompt is resolved (`resolvedAt` is written when it enters one). */
export const FINAL_PROMPT_STATES: readonly PromptState[] = PROMPT_STATES.filter((s) => Object.keys(PROMPT_TABLE[s]).length === 0);

/** States a hook (or a start's dialog watch) still waits in: its dialog is on the CLI's screen now. */
export const AWAITING_CLI_PROMPT_STATES: readonly PromptState[] = ['pending', 'answered'];

/** The moments of a prompt the chats hear about (outbox `prompt` rows): it opened, or it entered a state. */
export const PROMPT_PHASES = ['open', 'answered', 'waiting_at_computer', 'answered_at_computer', 'ended'] as const satisfies readonly ('open' | PromptState)[];
export type PromptPhase = (typeof PROMPT_PHASES)[number];

export function isPromptState(s: string): s is PromptState {
  return (PROMPT_STATES as readonly string[]).includes(s);
}

/** A stored state read back (the column is text); a value the machine never wrote is a broken row. */
export function promptStateOf(s: string): PromptState {
  if (!isPromptState(s)) throw new Error(`unknown permission prompt state ${JSON.stringify(s)}`);
  return s;
}

/** The agent's report of how a request ended (`protocol/session-events.ts` zPermissionResolved). */
export type PromptEndOutcome = 'answered' | 'hook_gone' | 'expired' | 'lost_on_restart';

/**
 * The event an agent's report of a request's end is for a row holding `rowAnswerId`: the hook got an
 * answer — this row's answer (`answer_delivered`), or one the hub never chose (no event); the hook
 * ended without one (`hook_gone`); the bound passed or the agent restarted without the hook (`expired`).
 */
export function promptEventOfEnd(end: { outcome: PromptEndOutcome; answerId?: string | undefined }, rowAnswerId: string | null): PromptEvent | null {
  switch (end.outcome) {
    case 'answered':
      return end.answerId !== undefined && end.answerId === rowAnswerId ? 'answer_delivered' : null;
    case 'hook_gone':
      return 'hook_gone';
    case 'expired':
    case 'lost_on_restart':
      return 'expired';
    default:
      return end.outcome satisfies never;
  }
}

/** Where a row goes on the agent's report of its end (`promptEventOfEnd` through the table), or null. */
export function promptStateAfter(
  rowState: PromptState,
  rowAnswerId: string | null,
  end: { outcome: PromptEndOutcome; answerId?: string | undefined },
): PromptState | null {
  const event = promptEventOfEnd(end, rowAnswerId);
  return event === null ? null : promptTransition(rowState, event);
}

/** The hook ended while nobody's answer was on its way: the user answered at the computer. */
export function answeredAtComputer(from: PromptState, to: PromptState): boolean {
  return to === 'answered_at_computer' && from !== 'answered';
}

/** The prompt end causes the engine and services store (`resolution.cause`, evidence `permission_ended`) → the event. */
export const PROMPT_END_CAUSES = {
  turn_completed: 'turn_ended',
  turn_api_error: 'turn_ended',
  turn_interrupted: 'turn_ended',
  process_exited: 'cli_exited',
  session_closed: 'cli_exited',
  cli_ready: 'cli_ready',
  superseded: 'superseded',
  stopped: 'stop_requested',
  archived: 'archived',
} as const satisfies Record<string, PromptEvent>;
export type PromptEndCause = keyof typeof PROMPT_END_CAUSES;

/**
 * What an open session waits for because of its prompts: `answer` while one is pending (the user
 * decides), `computer` while one waits at the computer (nobody answered in time); null otherwise (an
 * answer on its way is the CLI running on). The same rule for the sessions list, the bot and the page.
 */
export function promptWait(prompts: readonly { state: PromptState }[] | undefined): 'answer' | 'computer' | null {
  if (prompts?.some((p) => p.state === 'pending')) return 'answer';
  if (prompts?.some((p) => p.state === 'waiting_at_computer')) return 'computer';
  return null;
}

/** What the request offers: always-allow (Claude tool requests) and answers (Claude questions). */
export interface AnswerTarget {
  alwaysAllow: boolean;
  answers: boolean;
}
/** The shape of an answer: an allow or not, always-allow asked, answers given. */
export interface AnswerShape {
  allow: boolean;
  alwaysAllow: boolean;
  answers: boolean;
}
export type AnswerMisfit = 'always_allow_not_allow' | 'always_allow_not_offered' | 'answers_need_allow' | 'answers_not_taken';

/**
 * Whether an answer fits the request (pure): the hub checks it before it stores an answer, the agent
 * again before it hands one to a hook (an older hub, a stored command). Null when it fits.
 */
export function answerFits(target: AnswerTarget, a: AnswerShape): AnswerMisfit | null {
  if (a.alwaysAllow && !a.allow) return 'always_allow_not_allow';
  if (a.alwaysAllow && !target.alwaysAllow) return 'always_allow_not_offered';
  if (a.answers && !a.allow) return 'answers_need_allow';
  // Answers replace the question's input; an always-allow adds a rule for a tool: never both.
  if (a.answers && (!target.answers || a.alwaysAllow)) return 'answers_not_taken';
  return null;
}
