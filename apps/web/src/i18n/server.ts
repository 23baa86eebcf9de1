import { cookies, headers } from 'next/headers';
import { translator, type Locale, type Translate } from './catalog.ts';
import { LOCALE_COOKIE, pickLocale, savedLocale } from './pick-locale.ts';

/** The user's choice (a cookie set by the language switch), else the browser's language. */
export async function requestLocale(): Promise<{ locale: Locale; t: Translate; chosen: Locale | null }> {
  const chosen = savedLocale((await cookies()).get(LOCALE_COOKIE)?.value);
  const locale = chosen ?? pickLocale((await headers()).get('accept-language'));
  return { locale, t: translator(locale), chosen };
}
