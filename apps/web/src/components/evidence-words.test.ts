import { SESSION_EVENT_TYPES } from '@bria/core/domain';
import { SESSION_EVENT_PAYLOADS } from '@bria/core/protocol';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '../i18n/catalog.ts';
import { EVIDENCE_WORDS, evidenceWords, OTHER_EVIDENCE_EVENTS } from './evidence-words.ts';

describe('evidence wording', () => {
  it('has a sentence for every state-machine event and every other recorded event, in both languages', () => {
    for (const locale of LOCALES) {
      for (const event of [...SESSION_EVENT_TYPES, ...OTHER_EVIDENCE_EVENTS]) {
        const words = evidenceWords(event, locale);
        expect(words, `${locale} ${event}`).toBe(EVIDENCE_WORDS[locale][event]);
        expect(words, `${locale} ${event}`).not.toMatch(/_/);
      }
    }
    expect(Object.keys(EVIDENCE_WORDS.ru).sort()).toEqual(Object.keys(EVIDENCE_WORDS.en).sort());
  });

  it('words a refused report of every agent event without internal names', () => {
    for (const locale of LOCALES) {
      for (const event of Object.keys(SESSION_EVENT_PAYLOADS)) {
        expect(evidenceWords(`refused:${event}`, locale), event).not.toMatch(/[_:]\w/);
      }
    }
    expect(evidenceWords('refused:turn_accepted', 'en')).toBe('An outdated report from the computer was set aside (The agent took the message).');
  });

  it('gives an unknown event a readable fallback', () => {
    expect(evidenceWords('brand_new_event', 'en')).toBe('Recorded: brand new event.');
    expect(evidenceWords('brand_new_event', 'ru')).toBe('Записано: brand new event.');
  });
});
