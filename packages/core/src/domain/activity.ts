/**
 * Live progress of a turn, as pure rules over the activity rows the journal gave (issue 15). The
 * front ends render these shapes in their own words; nothing here changes a state or an outcome.
 */

/** One step as the rules see it (a SessionActivity row, oldest first). */
export interface ActivityStep {
  kind: string;
  toolName: string | null;
  subject: string | null;
  status: string;
  diffAdded: number | null;
  diffRemoved: number | null;
  startedAt: Date;
  endedAt: Date | null;
}

/**
 * What the card and the sessions list show under the state: the newest step, how many steps the
 * turn has had (assistant text is not a step), and for a run of reads at the end, how many files.
 */
export interface CurrentActivity {
  kind: string;
  toolName: string | null;
  subject: string | null;
  status: string;
  /** For an edit or write: lines added / removed. */
  added: number | null;
  removed: number | null;
  /** Consecutive reads at the end of the turn (≥ 1 when `kind` is read). */
  reads: number;
  steps: number;
  /** The turn this activity belongs to and when its first step started (ISO). */
  nativeTurnId: string | null;
  turnStartedAt: string;
  /** When the newest step started (ISO); a replay older than what is shown does not replace it. */
  at: string;
}

export const isStep = (kind: string): boolean => kind !== 'text';

/** The current activity of a turn from its steps in order; null for a turn without any. */
export function currentActivity(steps: readonly ActivityStep[], nativeTurnId: string | null): CurrentActivity | null {
  const last = steps.at(-1);
  if (!last) return null;
  let reads = 0;
  for (let i = steps.length - 1; i >= 0 && steps[i]!.kind === 'read'; i--) reads++;
  return {
    kind: last.kind,
    toolName: last.toolName,
    subject: last.subject,
    status: last.status,
    added: last.diffAdded,
    removed: last.diffRemoved,
    reads,
    steps: steps.filter((s) => isStep(s.kind)).length,
    nativeTurnId,
    turnStartedAt: steps[0]!.startedAt.toISOString(),
    at: last.startedAt.toISOString(),
  };
}

/** Whether a newly computed activity may replace the one shown (a replay of an older turn may not). */
export function supersedes(next: Pick<CurrentActivity, 'at'>, shown: Pick<CurrentActivity, 'at'> | null): boolean {
  return shown === null || next.at >= shown.at;
}

/** The one-line summary a final ends with: "4 commands, 2 files changed, 3 min". */
export interface TurnSummary {
  commands: number;
  filesChanged: number;
  /** Steps of any kind (tool calls). */
  steps: number;
  /** From the message's acceptance to its final; null when either is unknown. */
  ms: number | null;
}

export function turnSummary(steps: readonly ActivityStep[], acceptedAt: Date | null, finishedAt: Date): TurnSummary {
  const files = new Set<string>();
  let commands = 0;
  let count = 0;
  for (const s of steps) {
    if (!isStep(s.kind)) continue;
    count++;
    if (s.kind === 'command') commands++;
    if ((s.kind === 'edit' || s.kind === 'write') && s.status === 'ok' && s.subject) files.add(s.subject);
  }
  return { commands, filesChanged: files.size, steps: count, ms: acceptedAt ? Math.max(0, finishedAt.getTime() - acceptedAt.getTime()) : null };
}

/** Context-window use in percent (0–100, one decimal), or null when the window is unknown. */
export function contextPercent(used: number | null, window: number | null): number | null {
  if (used === null || window === null || window <= 0) return null;
  return Math.min(100, Math.round((used / window) * 1000) / 10);
}

/**
 * A step's subject in one short line (the card, the sessions list): a command by its first line, a
 * path by its last two parts, at most `max` characters with the cut marked.
 */
export function shortSubject(kind: string, subject: string, max = 80): string {
  let s = subject;
  if (kind === 'command') s = s.split('\n')[0] ?? '';
  else if (kind === 'edit' || kind === 'write' || kind === 'read') s = s.split('/').filter(Boolean).slice(-2).join('/') || s;
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
