import { describe, expect, it } from 'vitest';
import { catalogs, pickLanguage, translate } from './index.ts';

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('i18n catalogs', () => {
  it('Russian has exactly the English keys, each with the same placeholders', () => {
    expect(Object.keys(catalogs.ru).sort()).toEqual(Object.keys(catalogs.en).sort());
    for (const [key, text] of Object.entries(catalogs.en)) {
      expect(placeholders(catalogs.ru[key as keyof typeof catalogs.ru]), key).toEqual(placeholders(text));
      expect(catalogs.ru[key as keyof typeof catalogs.ru].length, key).toBeGreaterThan(0);
    }
  });

  it('names the lifecycle buttons as seed 000 does', () => {
    expect(translate('ru', 'button.stop')).toBe('Остановить');
    expect(translate('ru', 'button.close')).toBe('Закрыть');
  });

  it('picks the language from Telegram language codes', () => {
    expect(pickLanguage('ru')).toBe('ru');
    expect(pickLanguage('ru-RU')).toBe('ru');
    expect(pickLanguage('en-GB')).toBe('en');
    expect(pickLanguage('de')).toBe('en');
    expect(pickLanguage(undefined)).toBe('en');
  });

  it('fills placeholders and keeps unknown ones visible', () => {
    expect(translate('en', 'nodes.selected', { name: 'laptop' })).toBe('Selected: laptop.');
    expect(translate('en', 'nodes.selected')).toBe('Selected: {name}.');
  });
});
