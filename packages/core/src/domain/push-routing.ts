/**
 * Where one event that may need the user goes (issue 32): one decision per event over the user's
 * channels. Pure: the facts (is the session page open and visible, is Telegram linked, are there
 * push devices, the user's switches, the time of day as minutes) come in as arguments.
 *
 * Telegram is the record of everything Bria tells the user: its rows are written as before
 * (cards, finals, prompt messages edited in place) and the push settings never silence it; the
 * rule says `telegram: true` whenever a chat is linked so callers and tests see one decision.
 * Push is the channel that interrupts, so it is the one the switches govern.
 */

/** What can notify. */
export const PUSH_EVENT_KINDS = [
  /** A permission request or a question of the CLI waits for an answer. */
  'prompt_waiting',
  /** A start dialog (folder trust) waits. */
  'dialog_waiting',
  'turn_completed',
  'turn_failed',
  /** The turn ended and the journal cannot tell how (evidence unknown, CLI died mid-turn). */
  'turn_unknown',
  'session_ended_unexpectedly',
  'computer_away',
  'lifetime_ending',
] as const;
export type PushEventKind = (typeof PUSH_EVENT_KINDS)[number];

/**
 * `telegram_and_push`: devices get a push whatever Telegram got. `push_when_telegram_off`: a push
 * only when no Telegram chat is linked (the chat already rang the phone).
 */
export const PUSH_MODES = ['telegram_and_push', 'push_when_telegram_off'] as const;
export type PushMode = (typeof PUSH_MODES)[number];

/** Quiet hours as minutes of the day [0, 1440): `start` inclusive, `end` exclusive; start > end wraps midnight. */
export interface QuietHours {
  start: number;
  end: number;
}

export interface PushPrefs {
  mode: PushMode;
  /** Kinds switched off in Settings (all on by default). */
  kindsOff: readonly PushEventKind[];
  quietHours: QuietHours | null;
  /** Whether a push may carry the first line of the prompt or final (default off: title and kind only). */
  firstLine: boolean;
}

export const DEFAULT_PUSH_PREFS: PushPrefs = { mode: 'telegram_and_push', kindsOff: [], quietHours: null, firstLine: false };

export interface PushRouteFacts {
  event: PushEventKind;
  /** A dashboard tab shows this session's page and is visible (no signal: false). */
  pageVisible: boolean;
  /** A Telegram chat is linked and the bot runs. */
  telegram: boolean;
  /** At least one push subscription is stored. */
  pushDevices: boolean;
  /** The session is muted for push. */
  sessionMuted: boolean;
  /** A prompt or dialog is no longer waiting: a hook (or anyone) answered it before the push was decided. */
  alreadyAnswered: boolean;
  prefs: Pick<PushPrefs, 'mode' | 'kindsOff' | 'quietHours'>;
  /** Minutes since midnight in the user's time zone, for quiet hours. */
  minuteOfDay: number;
}

/** Why no push goes; checked in this order, the first that holds is the reason. */
export const NO_PUSH_REASONS = ['answered', 'no_devices', 'kind_off', 'muted', 'page_visible', 'quiet_hours', 'telegram_covers'] as const;
export type NoPushReason = (typeof NO_PUSH_REASONS)[number];

export type PushRoute = { telegram: boolean; push: true } | { telegram: boolean; push: false; reason: NoPushReason };

/** Whether `minute` lies in the quiet hours (an empty range, start = end, is never quiet). */
export function inQuietHours(q: QuietHours | null, minute: number): boolean {
  if (!q || q.start === q.end) return false;
  return q.start < q.end ? minute >= q.start && minute < q.end : minute >= q.start || minute < q.end;
}

/** The prompt kinds: the only events a hook can answer before the user sees them. */
export function isPromptEvent(event: PushEventKind): boolean {
  return event === 'prompt_waiting' || event === 'dialog_waiting';
}

/** The one decision per event. */
export function routePush(f: PushRouteFacts): PushRoute {
  const answered = isPromptEvent(f.event) && f.alreadyAnswered;
  // An answered prompt is news to nobody: Telegram's message is edited to the answer by its own row.
  const telegram = f.telegram && !answered;
  const no = (reason: NoPushReason): PushRoute => ({ telegram, push: false, reason });
  if (answered) return no('answered');
  if (!f.pushDevices) return no('no_devices');
  if (f.prefs.kindsOff.includes(f.event)) return no('kind_off');
  if (f.sessionMuted) return no('muted');
  if (f.pageVisible) return no('page_visible');
  if (inQuietHours(f.prefs.quietHours, f.minuteOfDay)) return no('quiet_hours');
  if (f.prefs.mode === 'push_when_telegram_off' && f.telegram) return no('telegram_covers');
  return { telegram, push: true };
}

/**
 * Web Push urgency (RFC 8030 §5.3) per kind: what waits for the user is `high` (delivered even on a
 * phone saving battery), a turn's end `normal`.
 */
export function pushUrgency(event: PushEventKind): 'high' | 'normal' {
  switch (event) {
    case 'prompt_waiting':
    case 'dialog_waiting':
    case 'session_ended_unexpectedly':
    case 'computer_away':
    case 'lifetime_ending':
      return 'high';
    case 'turn_completed':
    case 'turn_failed':
    case 'turn_unknown':
      return 'normal';
    default:
      return event satisfies never;
  }
}

/**
 * How long the push service may hold a push for an offline device (seconds). A prompt waits at most
 * its bound, so a push arriving later would announce a question nobody can answer any more.
 */
export function pushTtlSeconds(event: PushEventKind): number {
  return isPromptEvent(event) ? 10 * 60 : 24 * 60 * 60;
}

/** Minutes since midnight of `now` in `timeZone` (IANA); an unknown zone counts as UTC. */
export function minuteOfDayIn(now: Date, timeZone: string): number {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(now);
  } catch {
    return now.getUTCHours() * 60 + now.getUTCMinutes();
  }
  const n = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return (n('hour') % 24) * 60 + n('minute');
}

/** A UUID as an RFC 8030 Topic (≤ 32 characters of the URL-safe alphabet): its 32 hex digits. */
export function pushTopicOf(id: string): string {
  return id.replace(/[^0-9a-zA-Z]/g, '').slice(0, 32);
}
