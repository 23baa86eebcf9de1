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
 * - `adopting`: the user chose "Adopt in place" for a desk CLI in a tmux pane of the same user; the
 *   agent checks that process again and binds to its pane, the CLI untouched.
 * - `adopted`: Bria runs the session in the user's own pane (the same process, never restarted); it
 *   is one of Bria's sessions (not shown as "running in a terminal"), and Close releases the pane
 *   instead of ending the CLI (docs/handoff.md).
 */
export const HANDOFF_STATES = ['none', 'desk', 'taking_over', 'adopting', 'adopted'] as const;
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
  /** The user confirmed "Adopt in place" for the desk process on record. */
  'adopt_requested',
  /** The agent bound to the desk CLI's pane (the same process, checked again) and reported it Ready. */
  'adopt_confirmed',
  /** The agent refused to adopt (`not_in_tmux`, `other_user`, `pane_gone`, `holder_changed`…). */
  'adopt_refused',
  /** The session was closed in Bria: the adopted pane is released, the CLI left running at the desk. */
  'released',
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
    adopt_requested: 'adopting',
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
  adopting: {
    // The desk CLI keeps running while it is adopted: discovery's reports change nothing.
    desk_seen: 'adopting',
    desk_gone: 'adopting',
    adopt_confirmed: 'adopted',
    adopt_refused: 'desk',
  },
  adopted: {
    // Bria's own now (the agent counts an adopted pid as Bria's); a report from before it is stale.
    desk_seen: 'adopted',
    desk_gone: 'adopted',
    // The adopted CLI ended and Bria resumed the session in its own tmux (recovery).
    resumed_in_bria: 'none',
    // Closed in Bria: the next discovery look sees the CLI at the desk again (desk_seen).
    released: 'none',
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
export const runsOutsideBria = (handoff: HandoffState): boolean => handoff !== 'none' && handoff !== 'adopted';

const TMUX_NAME = /^[A-Za-z0-9._-]{1,100}$/;
/** A tmux socket path as a shell reads it unquoted (the user's own server of an adopted session). */
const TMUX_PATH = /^\/[A-Za-z0-9._/-]{1,1000}$/;

/**
 * "Back to the desk": `tmux -L <socket> attach -t <session>` for a session whose CLI Bria runs, from
 * the identity its agent reported (names checked, since the text is pasted into a shell); for an
 * adopted session the user's own server by its socket path, `tmux -S <path> attach -t <session>`;
 * null when Bria runs no CLI for it.
 */
export function attachCommand(o: { state: string; identity: unknown }): string | null {
  if (o.state === 'Archived' || o.state === 'ResumeFailed' || o.state === 'Closing') return null;
  const id = (o.identity ?? {}) as { tmuxSocket?: unknown; host?: { tmuxSession?: unknown } };
  const socket = typeof id.tmuxSocket === 'string' ? id.tmuxSocket : null;
  const name = typeof id.host?.tmuxSession === 'string' ? id.host.tmuxSession : null;
  if (!socket || !name || !TMUX_NAME.test(name)) return null;
  if (TMUX_PATH.test(socket) && !socket.split('/').includes('..')) return `tmux -S ${socket} attach -t ${name}`;
  return TMUX_NAME.test(socket) ? `tmux -L ${socket} attach -t ${name}` : null;
}
