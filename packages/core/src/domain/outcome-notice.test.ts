import { describe, expect, it } from 'vitest';
import { outcomeNoticeReason, telegramOrigin } from './outcome-notice.ts';

describe('outcomeNoticeReason', () => {
  it.each([
    ['terminal_failed', 'interrupted', 'stopped'],
    ['terminal_failed', 'turn_interrupted', 'interrupted'],
    ['terminal_failed', 'turn_api_error', 'api_error'],
    ['terminal_failed', 'something new', 'failed'],
    ['unknown', 'evidence_unknown', 'crash'],
    ['unknown', 'no_receipt', 'unknown'],
    ['unknown', 'delivery_interrupted', 'unknown'],
    ['unknown', 'stop_unconfirmed', 'stop_unconfirmed'],
    ['failed', 'session_closed', 'not_delivered_closed'],
    ['failed', 'resume_failed', 'not_delivered_resume'],
    ['failed', 'not_delivered', 'failed'],
  ] as const)('%s (%s) → %s', (to, detail, reason) => {
    expect(outcomeNoticeReason({ to, detail, turnHasFinal: false })).toBe(reason);
  });

  it('no notice for a completed message, one still in flight, or a turn that has its final', () => {
    for (const to of ['pending', 'leased', 'accepted', 'completed'] as const) expect(outcomeNoticeReason({ to, detail: null, turnHasFinal: false })).toBeNull();
    expect(outcomeNoticeReason({ to: 'terminal_failed', detail: 'interrupted', turnHasFinal: true })).toBeNull();
  });
});

describe('telegramOrigin', () => {
  it('reads the chat and message of a Telegram source key only', () => {
    expect(telegramOrigin('telegram', 'tg:100200300:42')).toEqual({ chatId: 100200300n, messageId: 42 });
    expect(telegramOrigin('telegram', 'tg:-100123:7')).toEqual({ chatId: -100123n, messageId: 7 });
    expect(telegramOrigin('telegram', 'tg:1')).toBeNull();
    expect(telegramOrigin('web', 'tg:1:2')).toBeNull();
    expect(telegramOrigin('telegram', null)).toBeNull();
  });
});
