import { describe, expect, it } from 'vitest';
import { formatSummary, loadLine, PATHS, parseResults, summaryRows } from './bench-summary.ts';

const results = parseResults(
  [
    JSON.stringify({ bench: 'run', phase: 'before', loadavg: [0.4, 0.5, 0.6], commit: 'abc1234' }),
    JSON.stringify({
      bench: 'floors',
      postgres: { notifyToListener: { p50: 0.84, p99: 4.62 }, pgSelect1: { p50: 0.31, p99: 1.2 }, prismaSelect1: { p50: 2.5, p99: 9 } },
      inotify: { jsonlTailer: { p50: 0.7, p99: 8.8 } },
      nodeStart: { p50: 40, p99: 61 },
    }),
    JSON.stringify({
      bench: 'prompt_latency',
      executor: 'claude',
      requestToBotApiMs: { median: 61.2, p99: 140 },
      allowPressedToCliContinuesMs: { median: 170, p99: 400 },
    }),
    JSON.stringify({
      bench: 'prompt_latency',
      executor: 'codex',
      requestToBotApiMs: { median: 44, p99: 171 },
      allowPressedToCliContinuesMs: { median: 120, p99: 230 },
    }),
    JSON.stringify({ bench: 'activity-latency', from: 'stored', storedToCardEditMs: { p50: 40, p99: 130 } }),
    JSON.stringify({ bench: 'activity-latency', from: 'journal', journalToCardEditMs: { p50: 45, p99: 150 } }),
    JSON.stringify({ bench: 'agent-bundle', startToOnlineMs: { p50: 200, max: 280 } }),
    JSON.stringify({ bench: 'run', phase: 'after', loadavg: [1.3, 0.7, 0.6] }),
    'not a result line',
  ].join('\n'),
);
const row = (id: string) =>
  summaryRows(results, { 'prompt-request-codex': { p50: 43, p99: 173, note: 'before' }, 'agent-bundle-start': { p50: 211, max: 291, note: 'old' } }).find(
    (r) => r.id === id,
  )!;

describe('bench summary', () => {
  it('takes each path from the line of its own executor or mode and the tail key its bench uses', () => {
    expect(row('prompt-request-codex')).toMatchObject({ p50: 44, p99: 171 });
    expect(row('prompt-answer-claude')).toMatchObject({ p50: 170, p99: 400 });
    expect(row('activity-journal-card')).toMatchObject({ p50: 45, p99: 150 });
    expect(row('activity-stored-card')).toMatchObject({ p50: 40, p99: 130 });
    expect(row('agent-bundle-start')).toMatchObject({ p50: 200, p99: 280 });
  });

  it("shows the baseline beside it and the same run's floors, and leaves benches that did not run empty", () => {
    expect(row('prompt-request-codex').baseline).toBe('43 / 173 (before)');
    expect(row('agent-bundle-start').baseline).toBe('211 / max 291 (old)');
    expect(row('activity-journal-card').floor).toBe('tailer 0.7 / 8.8 + NOTIFY 0.84 / 4.62');
    expect(row('archive-text-rare')).toMatchObject({ p50: null, p99: null, baseline: '—', floor: 'SELECT 1 (Prisma) 2.5 / 9' });
    expect(summaryRows(results, {})).toHaveLength(PATHS.length);
  });

  it('says the run was not quiet when the 1-minute load reached 1 before or after', () => {
    expect(loadLine(results)).toContain('before: 0.40 0.50 0.60; after: 1.30 0.70 0.60; NOT quiet');
    const quiet = results.map((r) => (r.bench === 'run' ? { ...r, loadavg: [0.2, 0.3, 0.4] } : r));
    expect(loadLine(quiet)).toContain('; quiet');
    // A rested reading decides when the run has one; the reading right after is shown beside it.
    const rested = [...results, { bench: 'run', phase: 'rested', loadavg: [0.6, 0.7, 0.6] }];
    expect(loadLine(rested)).toContain("right after: 1.30 0.70 0.60; after a minute's rest: 0.60 0.70 0.60; quiet");
    const stillBusy = [...results, { bench: 'run', phase: 'rested', loadavg: [1.9, 1.2, 0.8] }];
    expect(loadLine(stillBusy)).toContain('NOT quiet');
    expect(formatSummary(summaryRows(results, {}), results)).toContain('| permission request → Bot API (claude) | 61.2 | 140 | — |');
  });
});
