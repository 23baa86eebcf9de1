import { describe, expect, it } from 'vitest';
import { ClaudeJournal } from './claude-journal.ts';
import { CodexJournal } from './codex-journal.ts';
import { linesOf } from './fixture-lines.ts';
import { claudeLimit, claudeResetAt, codexLimit } from './limits.ts';

const at = Date.parse('2026-12-07T10:20:00Z');

describe('claudeResetAt: the next moment the text names, after the record', () => {
  const table: [string, string, string | undefined][] = [
    ['Claude AI usage limit reached|1750708800', 'UTC', '2025-06-23T20:00:00.000Z'],
    ["You've hit your session limit · resets 12:50pm (Europe/Paris)", 'UTC', '2026-12-07T11:50:00.000Z'],
    // Already past today in that zone: tomorrow.
    ['5-hour limit reached ∙ resets 3am (Europe/Paris)', 'UTC', '2026-12-08T02:00:00.000Z'],
    ['Claude usage limit reached. Your limit will reset at 3pm (America/Bogota).', 'UTC', '2026-12-07T20:00:00.000Z'],
    // No zone in the text: the computer's own.
    ['5-hour limit reached ∙ resets 6pm', 'Asia/Tokyo', '2026-12-08T09:00:00.000Z'],
    ['5-hour limit reached ∙ resets 6pm', 'UTC', '2026-12-07T18:00:00.000Z'],
    ['Limits will reset at 9:30 AM.', 'UTC', '2026-12-08T09:30:00.000Z'],
    ["You've hit your weekly limit · resets Dec 9, 5pm (UTC)", 'UTC', '2026-12-09T17:00:00.000Z'],
    // A date before the record is next year's.
    ["You've hit your weekly limit · resets Jan 2, 5pm (UTC)", 'UTC', '2027-01-02T17:00:00.000Z'],
    ['usage limit reached, resets soon', 'UTC', undefined],
    ['limit reached · resets 5 (Nowhere/Zone)', 'UTC', undefined],
    ['limit reached · resets 5pm (Nowhere/Zone)', 'UTC', undefined],
    ['limit reached · resets 13pm (UTC)', 'UTC', undefined],
  ];
  for (const [text, zone, out] of table) {
    it(`${text} [${zone}] → ${out ?? 'unknown'}`, () => {
      const t = claudeResetAt(text, at, zone);
      expect(t === undefined ? undefined : new Date(t).toISOString()).toBe(out);
    });
  }
});

describe('claudeLimit: which API errors are limits', () => {
  const table: [string, boolean][] = [
    ['Claude AI usage limit reached|1750708800', true],
    ["You've hit your session limit · resets 12:50pm (Europe/Paris)", true],
    ['5-hour limit reached ∙ resets 3pm', true],
    ["API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later.", true],
    ['API Error: 400 mock fail400', false],
    ['API Error: 500 {"type":"error","error":{"type":"api_error"}}', false],
    ['Prompt is too long', false],
  ];
  for (const [text, limited] of table) it(`${text.slice(0, 50)} → ${limited}`, () => expect(claudeLimit(text, at, 'UTC')?.reached ?? false).toBe(limited));
});

describe('codexLimit: the rate_limits of a token count', () => {
  const w = (used: number, resets: number | null) => ({ used_percent: used, window_minutes: 300, resets_at: resets });
  it('a window at 100 % is reached until its reset', () => {
    expect(codexLimit({ primary: w(100, 1_800_000_000), secondary: w(40, 1_800_500_000), rate_limit_reached_type: null }, at)).toEqual({
      reached: true,
      resetsAt: 1_800_000_000_000,
      windows: [
        { name: 'primary', usedPercent: 100, windowMinutes: 300, resetsAt: 1_800_000_000_000 },
        { name: 'secondary', usedPercent: 40, windowMinutes: 300, resetsAt: 1_800_500_000_000 },
      ],
      at,
    });
  });
  it('windows under 100 % are not reached', () => {
    expect(codexLimit({ primary: w(99.5, 1_800_000_000), secondary: null }, at)).toMatchObject({ reached: false, windows: [{ name: 'primary' }] });
  });
  it('rate_limit_reached_type says reached even under 100 %', () => {
    expect(codexLimit({ primary: w(80, 1_800_000_000), rate_limit_reached_type: 'primary' }, at)).toMatchObject({ reached: true, resetsAt: 1_800_000_000_000 });
  });
  it('a provider without limits reports nothing', () => {
    expect(codexLimit({ limit_id: 'codex', primary: null, secondary: null, rate_limit_reached_type: null }, at)).toBeNull();
    expect(codexLimit(null, at)).toBeNull();
  });
});

// Captured from the pinned CLIs against the mock's LIMIT429-120 (a 429 as each provider sends it):
// a first turn answered, then the limit.
describe('limit records in real journals', () => {
  it('Codex 0.171: the token count before the error carries the full primary window and its reset', () => {
    const j = new CodexJournal();
    j.ingest(linesOf(new URL('./fixtures/codex-limit.jsonl', import.meta.url).pathname));
    const limits = j.limits.drain();
    expect(limits).toHaveLength(1);
    expect(limits[0]).toMatchObject({
      reached: true,
      windows: [
        { name: 'primary', usedPercent: 100, windowMinutes: 300 },
        { name: 'secondary', usedPercent: 40 },
      ],
    });
    expect(limits[0]!.resetsAt).toBe(limits[0]!.windows[0]!.resetsAt);
    // About two minutes after the record (LIMIT429-120).
    expect(limits[0]!.resetsAt! - limits[0]!.at).toBeGreaterThan(110_000);
    expect(limits[0]!.resetsAt! - limits[0]!.at).toBeLessThan(130_000);
    expect(j.limits.drain()).toEqual([]);
    // The turn itself ends as an API error with Codex's own words.
    const turn = j.prompts.find((p) => p.text.includes('LIMIT429'))!;
    expect(j.outcome(turn.nativeRef)).toMatchObject({ state: 'api_error', errorText: expect.stringContaining('usage limit') });
  });

  it('Claude 2.1.197 with an API key: a rate_limit error record, reached, with no reset time', () => {
    const j = new ClaudeJournal();
    j.ingest(linesOf(new URL('./fixtures/claude-limit.jsonl', import.meta.url).pathname));
    const limits = j.limits.drain();
    expect(limits).toEqual([{ reached: true, windows: [], text: expect.stringContaining('Request rejected (429)'), at: expect.any(Number) }]);
  });

  it('Claude: a model answering after a limit says it lifted, once', () => {
    const j = new ClaudeJournal();
    const rec = (uuid: string, o: Record<string, unknown>) =>
      JSON.stringify({ type: 'assistant', uuid, parentUuid: null, timestamp: '2026-12-07T10:00:00Z', ...o });
    const lines = [
      rec('a', {
        isApiErrorMessage: true,
        error: 'rate_limit',
        message: { model: '<synthetic>', content: [{ type: 'text', text: "You've hit your session limit · resets 12:50pm (UTC)" }] },
      }),
      rec('b', { message: { model: 'claude-opus-4-8', usage: { output_tokens: 3 }, content: [{ type: 'text', text: 'hi' }] } }),
      rec('c', { message: { model: 'claude-opus-4-8', usage: { output_tokens: 3 }, content: [{ type: 'text', text: 'again' }] } }),
    ];
    const journal: { text: string; offset: number; end: number }[] = [];
    for (const text of lines) {
      const offset = journal.at(-1)?.end ?? 0;
      journal.push({ text, offset, end: offset + text.length + 1 });
    }
    j.ingest(journal);
    expect(j.limits.drain().map((l) => [l.reached, l.resetsAt && new Date(l.resetsAt).toISOString()])).toEqual([
      [true, '2026-12-07T12:50:00.000Z'],
      [false, undefined],
    ]);
  });
});
