import type { SessionState } from './session-types.ts';

/** The only lifetime values the product allows (SPEC §1): one global setting for all sessions. */
export const LIFETIME_SETTINGS = ['never', '6h', '12h', '24h', '48h'] as const;
export type LifetimeSetting = (typeof LIFETIME_SETTINGS)[number];
export const DEFAULT_LIFETIME: LifetimeSetting = '12h';

const HOURS: Record<LifetimeSetting, number | null> = { never: null, '6h': 6, '12h': 12, '24h': 24, '48h': 48 };
const HOUR_MS = 3_600_000;

export function isLifetimeSetting(value: unknown): value is LifetimeSetting {
  return typeof value === 'string' && (LIFETIME_SETTINGS as readonly string[]).includes(value);
}

/** Hours of a setting, or null for "never". */
export function lifetimeHours(setting: LifetimeSetting): number | null {
  return HOURS[setting];
}

/** Reads a stored hour count back into a setting; anything else is not a valid setting. */
export function lifetimeFromHours(hours: number | null): LifetimeSetting | null {
  const found = LIFETIME_SETTINGS.find((s) => HOURS[s] === hours);
  return found ?? null;
}

/**
 * The deadline of a session whose lifetime started at `startedAt` — creation, or a *successful*
 * resume. Nothing else calls this: activity, messages and finished answers never extend it.
 */
export function deadlineFrom(startedAt: Date, setting: LifetimeSetting): Date | null {
  const hours = HOURS[setting];
  return hours === null ? null : new Date(startedAt.getTime() + hours * HOUR_MS);
}

export function isLifetimeDue(deadline: Date | null, now: Date): boolean {
  return deadline !== null && now.getTime() >= deadline.getTime();
}

/**
 * What expiry means for a session in `state`; the transition table implements exactly this
 * (a test checks they agree).
 * - `close_now`: idle, close and archive.
 * - `close_after_work`: working; current work is not interrupted, new input is refused, close after.
 * - `finish_backlog`: Ready but work Bria already accepted is still queued or being handed over:
 *   it runs first, then the session closes.
 * - `mark_expired`: the session cannot act on it now (starting, stopping, recovering); new input is
 *   refused at once and the close decision is taken when it is back in Ready/Running.
 * - `not_applicable`: no lifetime runs in this state (or it already expired).
 */
export type ExpiryDecision = 'close_now' | 'close_after_work' | 'finish_backlog' | 'mark_expired' | 'not_applicable';

export function onExpiry(state: SessionState, hasAcceptedWork: boolean): ExpiryDecision {
  switch (state) {
    case 'Ready':
      return hasAcceptedWork ? 'finish_backlog' : 'close_now';
    case 'Running':
      return 'close_after_work';
    case 'Starting':
    case 'Stopping':
    case 'AwaitingRecovery':
      return 'mark_expired';
    case 'Resuming':
    case 'ClosingAfterWork':
    case 'Closing':
    case 'Archived':
    case 'ResumeFailed':
      return 'not_applicable';
    default:
      return state satisfies never;
  }
}

/** The notice a user gets when input arrives for an expired session; texts live in i18n. */
export interface LifetimeRefusalNotice {
  kind: 'lifetime_expired_refusal';
  /** The message was not stored: it will never run in this session. */
  stored: false;
  deadline: Date | null;
}

export function expiryRefusalNotice(deadline: Date | null): LifetimeRefusalNotice {
  return { kind: 'lifetime_expired_refusal', stored: false, deadline };
}
