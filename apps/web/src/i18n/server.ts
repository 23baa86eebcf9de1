import { headers } from 'next/headers';
import { translator, type Locale, type Translate } from './catalog.ts';
import { pickLocale } from './pick-locale.ts';

export async function requestLocale(): Promise<{ locale: Locale; t: Translate }> {
  const locale = pickLocale((await headers()).get('accept-language'));
  return { locale, t: translator(locale) };
}
