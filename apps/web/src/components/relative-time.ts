import type { Locale } from '../i18n/catalog.ts';

const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 365],
];

/** "5 seconds ago" / "5 секунд назад", from an ISO date. */
export function relativeTime(iso: string, locale: Locale, now = Date.now()): string {
  let value = (new Date(iso).getTime() - now) / 1000;
  const fmt = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  for (const [unit, size] of STEPS) {
    if (Math.abs(value) < size) return fmt.format(Math.round(value), unit);
    value /= size;
  }
  return fmt.format(Math.round(value), 'year');
}

export function shortDate(iso: string, locale: Locale): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}

/**
 * Milliseconds until `relativeTime(iso, …)` reads differently: it rounds to its unit, so the
 * text changes at each half unit and where the unit itself changes. At most an hour.
 */
export function nextChangeMs(iso: string, now = Date.now()): number {
  const age = Math.abs(now - new Date(iso).getTime());
  if (!Number.isFinite(age)) return 3_600_000;
  let unit = 1000;
  for (const [, size] of STEPS) {
    if (age < unit * size) {
      const halves = Math.floor(age / unit - 0.5) + 1;
      const nextHalf = (halves + 0.5) * unit;
      // +1: a past time rounds -2.5 to -2, so the text changes just after the half, not on it.
      return Math.min(3_600_000, Math.ceil(Math.min(nextHalf, unit * size) - age) + 1);
    }
    unit *= size;
  }
  return 3_600_000;
}
