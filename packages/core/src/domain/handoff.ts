/**
 * Desk ↔ phone: where a session's native CLI runs when it does not run in Bria's tmux. Orthogonal to
 * the session state (`session-table.ts`): an Archived record whose native session a terminal at the
 * computer holds is shown under open sessions as "running in a terminal on <computer>", and an open
 * Bria session whose CLI the user ended and resumed by hand is shown the same way while the agent's
 * guard refuses every start of a second CLI on that id.
 *
 * - `none`: no process outside Bria is known to hold the session.
 * - `desk`: a process outside Bria holds it (pid + start, from discovery or from a refused resume).
 * - `taking_over`: the user chose "Continue here"; the agent ends that process (its own exit keys or
 *   signals, verified) and then resumes the same id in Bria's tmux.
 */
export const HANDOFF_STATES = ['none', 'desk', 'taking_over'] as const;
export type HandoffState = (typeof HANDOFF_STATES)[number];

export const HANDOFF_EVENTS = [
  /** Discovery (or a resume the agent refused) found a live process outside Bria on the id. */
  'desk_seen',
  /** Discovery found no process outside Bria on the id any more (pid gone). */
  'desk_gone',
  /** The user confirmed "Continue here". */
  'continue_requested',
  /** The agent ended the desk CLI verifiably and started the resume. */
  'desk_ended',
  /** The agent could not end it (another user's process, no exit within the bounds) or another process holds it. */
  'take_over_refused',
  /** Bria's CLI reopened the session (resume confirmed). */
  'resumed_in_bria',
] as const;
export type HandoffEvent = (typeof HANDOFF_EVENTS)[number];

/** A missing cell is an illegal move. */
export const HANDOFF_TABLE = {
  none: {
    desk_seen: 'desk',
    desk_gone: 'none',
    resumed_in_bria: 'none',
  },
  desk: {
    desk_seen: 'desk',
    desk_gone: 'none',
    continue_requested: 'taking_over',
    // A resume confirmed while a desk process was on record: that process has ended (the agent
    // refuses to resume an id another process holds).
    resumed_in_bria: 'none',
  },
  taking_over: {
    // Discovery keeps seeing the desk CLI until it has ended: the take-over goes on.
    desk_seen: 'taking_over',
    desk_gone: 'taking_over',
    desk_ended: 'none',
    take_over_refused: 'desk',
    resumed_in_bria: 'none',
  },
} as const satisfies Record<HandoffState, Partial<Record<HandoffEvent, HandoffState>>>;

export type HandoffResult = { ok: true; next: HandoffState } | { ok: false; reason: 'ILLEGAL_HANDOFF'; state: HandoffState; event: HandoffEvent };

export function handoffTransition(state: HandoffState, event: HandoffEvent): HandoffResult {
  const row: Partial<Record<HandoffEvent, HandoffState>> = HANDOFF_TABLE[state];
  const next = row[event];
  return next === undefined ? { ok: false, reason: 'ILLEGAL_HANDOFF', state, event } : { ok: true, next };
}

/** A stored value read back (an unknown one, from a newer version, reads as `none`). */
export function handoffOf(value: string | null | undefined): HandoffState {
  return (HANDOFF_STATES as readonly string[]).includes(value ?? '') ? (value as HandoffState) : 'none';
}

/** Whether a record is shown under open sessions because its native CLI runs outside Bria. */
export const runsOutsideBria = (handoff: HandoffState): boolean => handoff !== 'none';

const TMUX_NAME = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * "Back to the desk": `tmux -L <socket> attach -t <session>` for a session whose CLI Bria runs, from
 * the identity its agent reported (names checked, since the text is pasted into a shell); null when
 * Bria runs no CLI for it.
 */
export function attachCommand(o: { state: string; identity: unknown }): string | null {
  if (o.state === 'Archived' || o.state === 'ResumeFailed' || o.state === 'Closing') return null;
  const id = (o.identity ?? {}) as { tmuxSocket?: unknown; host?: { tmuxSession?: unknown } };
  const socket = typeof id.tmuxSocket === 'string' ? id.tmuxSocket : null;
  const name = typeof id.host?.tmuxSession === 'string' ? id.host.tmuxSession : null;
  return socket && name && TMUX_NAME.test(socket) && TMUX_NAME.test(name) ? `tmux -L ${socket} attach -t ${name}` : null;
}
