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
