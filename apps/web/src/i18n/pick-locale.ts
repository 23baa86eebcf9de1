import { LOCALES, type Locale } from './catalog.ts';

/** The best supported language from an Accept-Language header (q-values honoured); English otherwise. */
export function pickLocale(acceptLanguage: string | null | undefined): Locale {
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { lang: tag.toLowerCase().split('-')[0] ?? '', q: q === undefined ? 1 : Number(q), i };
    })
    .filter((r) => r.lang && r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranked) if ((LOCALES as readonly string[]).includes(r.lang)) return r.lang as Locale;
  return 'en';
}

/**
 * The language chosen in the dashboard, kept in a plain cookie for a year. Decision: a cookie, not
 * a per-user setting, because it also applies on the sign-in page (before anyone is known) and it
 * is a display preference of one browser, like the browser's own language.
 */
export const LOCALE_COOKIE = 'bria_locale';

/** A stored choice, if it names a supported language (anything else means "browser language"). */
export function savedLocale(value: string | null | undefined): Locale | null {
  return value && (LOCALES as readonly string[]).includes(value) ? (value as Locale) : null;
}
