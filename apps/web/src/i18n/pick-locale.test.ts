import { describe, expect, it } from 'vitest';
import { catalogs, translator } from './catalog.ts';
import { pickLocale, savedLocale } from './pick-locale.ts';

describe('pickLocale', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['ru-RU,ru;q=0.9,en-US;q=0.8', 'ru'],
    ['de-DE,de;q=0.9,ru;q=0.5,en;q=0.4', 'ru'],
    ['en;q=0.3, ru;q=0.7', 'ru'],
    ['ru;q=0, en', 'en'],
    ['fr, de', 'en'],
  ] as const)('%s → %s', (header, expected) => {
    expect(pickLocale(header)).toBe(expected);
  });
});

describe('catalog', () => {
  it('has a non-empty Russian text for every English key and fills placeholders', () => {
    const vars = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();
    for (const [key, text] of Object.entries(catalogs.en)) {
      const ru = catalogs.ru[key as keyof typeof catalogs.en];
      expect(ru, key).toMatch(/\S/);
      expect(vars(ru), key).toEqual(vars(text));
    }
    expect(translator('ru')('nav.signedInAs', { name: 'Аня' })).toBe('Вы вошли как Аня');
    expect(translator('en')('nav.signedInAs')).toBe('Signed in as {name}');
  });
});

describe('savedLocale (the language switch cookie)', () => {
  it('accepts only supported languages; anything else means the browser language', () => {
    expect(savedLocale('ru')).toBe('ru');
    expect(savedLocale('en')).toBe('en');
    for (const v of [undefined, null, '', 'de', 'RU', 'ru;']) expect(savedLocale(v)).toBeNull();
  });
});
