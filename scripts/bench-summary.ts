/**
 * The issue 18 table: each path's p50 / p99 from one run's result lines (bench-out/results.jsonl),
 * beside its last recorded figure (docs/bench-baseline.json) and the physical floors the `floors`
 * bench measured in the same run. Pure: results and baseline come in, rows and text go out.
 */

type Json = Record<string, unknown>;

export interface BaselineFigure {
  p50: number;
  p99?: number;
  /** Where the run kept no p99 (archive: p95 of 20–30 rounds; bundle: max of 5). */
  p95?: number;
  max?: number;
  note: string;
}
export type Baseline = Record<string, BaselineFigure>;

interface PathSpec {
  id: string;
  label: string;
  bench: string;
  /** Other fields the result line must have (executor, mode). */
  match?: Json;
  /** Dotted path to the stats object in the line. */
  field: string;
  /** Names of its keys that hold the median and the tail (benches differ: p50/median, p99/p95/max). */
  p50Key: string;
  tailKey: string;
  /** Dotted paths into the `floors` line: the hops this path cannot do without. */
  floors: string[];
}

const FLOOR_NAMES: Record<string, string> = {
  'tmuxPaste.control.paneOutput': 'tmux paste→pane',
  'inotify.fsWatch': 'inotify',
  'inotify.jsonlTailer': 'tailer',
  'postgres.pgSelect1': 'SELECT 1',
  'postgres.prismaSelect1': 'SELECT 1 (Prisma)',
  'postgres.notifyToListener': 'NOTIFY',
  nodeStart: 'node start',
};

const std = { p50Key: 'p50', tailKey: 'p99' };
const med = { p50Key: 'median', tailKey: 'p99' };
export const PATHS: PathSpec[] = [
  ...(['claude', 'codex'] as const).flatMap((executor) => [
    {
      id: `prompt-request-${executor}`,
      label: `permission request → Bot API (${executor})`,
      bench: 'prompt_latency',
      match: { executor },
      field: 'requestToBotApiMs',
      ...med,
      floors: ['postgres.notifyToListener'],
    },
    {
      id: `prompt-answer-${executor}`,
      label: `Allow pressed → CLI continues (${executor})`,
      bench: 'prompt_latency',
      match: { executor },
      field: 'allowPressedToCliContinuesMs',
      ...med,
      floors: ['postgres.notifyToListener'],
    },
  ]),
  {
    id: 'activity-journal-dashboard',
    label: 'activity: journal append → dashboard NOTIFY',
    bench: 'activity-latency',
    match: { from: 'journal' },
    field: 'journalToDashboardNotifyMs',
    ...std,
    floors: ['inotify.jsonlTailer', 'postgres.notifyToListener'],
  },
  {
    id: 'activity-journal-card',
    label: 'activity: journal append → card edit',
    bench: 'activity-latency',
    match: { from: 'journal' },
    field: 'journalToCardEditMs',
    ...std,
    floors: ['inotify.jsonlTailer', 'postgres.notifyToListener'],
  },
  {
    id: 'activity-stored-dashboard',
    label: 'activity: stored event → dashboard NOTIFY',
    bench: 'activity-latency',
    match: { from: 'stored' },
    field: 'storedToDashboardNotifyMs',
    ...std,
    floors: ['postgres.notifyToListener'],
  },
  {
    id: 'activity-stored-card',
    label: 'activity: stored event → card edit',
    bench: 'activity-latency',
    match: { from: 'stored' },
    field: 'storedToCardEditMs',
    ...std,
    floors: ['postgres.notifyToListener'],
  },
  {
    id: 'archive-text-rare',
    label: 'archive search, 100,000 messages: rare word',
    bench: 'archive',
    field: 'ms.textRareWordAllComputers',
    ...std,
    floors: ['postgres.prismaSelect1'],
  },
  {
    id: 'archive-text-common',
    label: 'archive search, 100,000 messages: two common words',
    bench: 'archive',
    field: 'ms.textCommonWordAllComputers',
    ...std,
    floors: ['postgres.prismaSelect1'],
  },
  {
    id: 'agent-bundle-start',
    label: 'agent bundle start → online (p99 = max of runs)',
    bench: 'agent-bundle',
    field: 'startToOnlineMs',
    p50Key: 'p50',
    tailKey: 'max',
    floors: ['nodeStart'],
  },
  ...(['claude', 'codex'] as const).map((executor) => ({
    id: `paste-drawn-${executor}`,
    label: `message handed to the agent → drawn in the pane (${executor})`,
    bench: 'agent_paste',
    match: { executor },
    field: 'deliverToPaneShownMs',
    ...med,
    floors: ['tmuxPaste.control.paneOutput'],
  })),
  {
    id: 'journal-tail',
    label: 'journal line appended → tailer (separate writer)',
    bench: 'journal_tail',
    field: 'tailerMs',
    ...med,
    floors: ['inotify.fsWatch'],
  },
];

export interface SummaryRow {
  id: string;
  label: string;
  p50: number | null;
  p99: number | null;
  baseline: string;
  floor: string;
}

function at(obj: unknown, dotted: string): unknown {
  let cur = obj;
  for (const key of dotted.split('.')) cur = cur && typeof cur === 'object' ? (cur as Json)[key] : undefined;
  return cur;
}

const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const fmt = (x: number | null | undefined) =>
  x === null || x === undefined ? '—' : x >= 100 ? String(Math.round(x)) : String(Number(x.toFixed(x < 10 ? 2 : 1)));

function baselineText(b: BaselineFigure | undefined): string {
  if (!b) return '—';
  const tail = b.p99 !== undefined ? fmt(b.p99) : b.p95 !== undefined ? `p95 ${fmt(b.p95)}` : b.max !== undefined ? `max ${fmt(b.max)}` : '—';
  return `${fmt(b.p50)} / ${tail} (${b.note})`;
}

/** One row per known path; a path whose bench did not run has null figures. The last matching line wins. */
export function summaryRows(results: readonly Json[], baseline: Baseline): SummaryRow[] {
  const floors = results.filter((r) => r.bench === 'floors').at(-1);
  return PATHS.map((p) => {
    const line = results.filter((r) => r.bench === p.bench && Object.entries(p.match ?? {}).every(([k, v]) => r[k] === v)).at(-1);
    const s = line ? at(line, p.field) : undefined;
    const floor = floors
      ? p.floors.map((f) => `${FLOOR_NAMES[f] ?? f} ${fmt(num(at(floors, `${f}.p50`)))} / ${fmt(num(at(floors, `${f}.p99`)))}`).join(' + ')
      : '—';
    return { id: p.id, label: p.label, p50: num(at(s, p.p50Key)), p99: num(at(s, p.tailKey)), baseline: baselineText(baseline[p.id]), floor };
  });
}

/** Load averages the runner wrote before and after the run (`bench: 'run'` lines). */
export function loadLine(results: readonly Json[]): string {
  const phase = (name: string) => results.find((r) => r.bench === 'run' && r.phase === name);
  const show = (r: Json | undefined) => (Array.isArray(r?.loadavg) ? (r.loadavg as number[]).map((x) => x.toFixed(2)).join(' ') : '?');
  const before = phase('before');
  const after = phase('after');
  // The reading after a minute's rest, when the run has one (the one right after holds the benches' own load).
  const rested = phase('rested');
  const end = rested ?? after;
  const quiet = Array.isArray(before?.loadavg) && Array.isArray(end?.loadavg) && (before.loadavg as number[])[0]! < 1 && (end.loadavg as number[])[0]! < 1;
  const afterText = rested ? `right after: ${show(after)}; after a minute's rest: ${show(rested)}` : `after: ${show(after)}`;
  return `load average (1/5/15 min) before: ${show(before)}; ${afterText}; ${quiet ? 'quiet (1-min load < 1 before and after)' : 'NOT quiet (issue 18 needs 1-min load < 1 before and after)'}${before?.commit ? `; commit ${String(before.commit)}` : ''}`;
}

export function formatSummary(rows: readonly SummaryRow[], results: readonly Json[]): string {
  const lines = [
    loadLine(results),
    '',
    '| path | p50 (ms) | p99 (ms) | baseline p50 / p99 (ms) | floor p50 / p99 (ms, same run) |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.label} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.baseline} | ${r.floor} |`),
  ];
  return lines.join('\n');
}

export function parseResults(text: string): Json[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Json);
}
