import { en, type MessageKey } from './en.ts';
import { ru } from './ru.ts';

/** One message catalog per language, shared by the bot and the dashboard. */
export const LANGUAGES = ['en', 'ru'] as const;
export type Language = (typeof LANGUAGES)[number];
export type { MessageKey };
export type Params = Record<string, string | number>;

export const catalogs: Record<Language, Record<MessageKey, string>> = { en, ru };

/** A key of the catalogs (every catalog has the same keys). */
export function isMessageKey(value: unknown): value is MessageKey {
  return typeof value === 'string' && Object.hasOwn(en, value);
}

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** Telegram's `language_code` (IETF tag like `ru`, `ru-RU`, `en-GB`) → a catalog we have; English otherwise. */
export function pickLanguage(code: string | null | undefined): Language {
  const base = code?.toLowerCase().split(/[-_]/)[0];
  return isLanguage(base) ? base : 'en';
}

/** `{name}` placeholders are replaced; an unknown placeholder stays visible so a missing param is noticed. */
export function translate(lang: Language, key: MessageKey, params: Params = {}): string {
  const template = catalogs[lang][key] ?? en[key];
  return template.replace(/\{(\w+)\}/g, (all, name: string) => (name in params ? String(params[name]) : all));
}

export type Translator = (key: MessageKey, params?: Params) => string;

export function translator(lang: Language): Translator {
  return (key, params) => translate(lang, key, params);
}

/** The plural form a count takes (`one` / `few` / `many` keys): Russian's three forms, English's two. */
export function pluralForm(lang: Language, n: number): 'one' | 'few' | 'many' {
  const a = Math.abs(Math.trunc(n));
  if (lang === 'en') return a === 1 ? 'one' : 'many';
  const d = a % 10;
  const dd = a % 100;
  if (d === 1 && dd !== 11) return 'one';
  if (d >= 2 && d <= 4 && (dd < 12 || dd > 14)) return 'few';
  return 'many';
}

/** `<base>.one|few|many` with `{n}`, in the translator's own language (its `lang.code`). */
export function counted(t: Translator, base: string, n: number): string {
  const code = t('lang.code');
  return t(`${base}.${pluralForm(isLanguage(code) ? code : 'en', n)}` as MessageKey, { n });
}
