import type { Locale } from '../i18n/catalog.ts';

const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [['second', 60], ['minute', 60], ['hour', 24], ['day', 365]];

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
