import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npx tsx scripts/bench-chart.ts`: draws the latency distributions the benchmarks dumped to
 * bench-out/*.json (`{ bench, unit: 'ms', samples: { key: number[] } }`) as horizontal box plots on
 * one logarithmic millisecond axis, with the goals and the 1–2 s polling baseline marked. Writes
 * docs/benchmarks-latency.svg (hand-written SVG) and, when `rsvg-convert` exists, a PNG next to it.
 * bench-out/results.jsonl, when present, supplies the run date shown in the caption.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'bench-out');
const svgPath = path.join(root, 'docs', 'benchmarks-latency.svg');

interface Series {
  group: string;
  label: string;
  xs: number[];
}
const LABELS: Record<string, [string, string]> = {
  'claude/paste': ['message → pane', 'Claude: deliver() → paste command done'],
  'claude/shown': ['message → pane', 'Claude: deliver() → text drawn in pane'],
  'codex/paste': ['message → pane', 'Codex: deliver() → paste command done'],
  'codex/shown': ['message → pane', 'Codex: deliver() → text drawn in pane'],
  'claude/acceptWrite': ['journal → event (real CLIs)', 'Claude prompt: file write → accepted'],
  'claude/acceptTs': ['journal → event (real CLIs)', 'Claude prompt: record timestamp → accepted'],
  'claude/doneWrite': ['journal → event (real CLIs)', 'Claude turn end: file write → completed'],
  'claude/doneTs': ['journal → event (real CLIs)', 'Claude turn end: record timestamp → completed'],
  'codex/acceptWrite': ['journal → event (real CLIs)', 'Codex prompt: file write → accepted'],
  'codex/acceptTs': ['journal → event (real CLIs)', 'Codex prompt: record timestamp → accepted'],
  'codex/doneWrite': ['journal → event (real CLIs)', 'Codex turn end: file write → completed'],
  'codex/doneTs': ['journal → event (real CLIs)', 'Codex turn end: record timestamp → completed'],
  tailer: ['journal → event (synthetic appends)', 'Bria tailer (fs.watch + offsets)'],
  'poll 1 s': ['journal → event (synthetic appends)', 'baseline: poll every 1 s'],
  'poll 2 s': ['journal → event (synthetic appends)', 'baseline: poll every 2 s'],
  notify: ['hub queue', 'message stored → deliver command NOTIFY'],
  'e2e claude/tgToPane': ['end to end (Telegram)', 'Claude: update → text drawn in pane'],
  'e2e codex/tgToPane': ['end to end (Telegram)', 'Codex: update → text drawn in pane'],
  'e2e claude/turnEndWriteToTelegram': ['end to end (Telegram)', 'Claude: turn-end written → final at Bot API'],
  'e2e claude/turnEndTsToTelegram': ['end to end (Telegram)', 'Claude: turn-end timestamp → final at Bot API'],
  'e2e codex/turnEndWriteToTelegram': ['end to end (Telegram)', 'Codex: turn-end written → final at Bot API'],
  'e2e codex/turnEndTsToTelegram': ['end to end (Telegram)', 'Codex: turn-end timestamp → final at Bot API'],
};

function load(): Series[] {
  const out: Series[] = [];
  if (!existsSync(outDir)) return out;
  for (const f of readdirSync(outDir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const data = JSON.parse(readFileSync(path.join(outDir, f), 'utf8')) as { bench: string; unit?: string; samples: Record<string, number[]> };
    if (data.unit !== 'ms') continue;
    for (const [key, xs] of Object.entries(data.samples)) {
      if (xs.length === 0) continue;
      const [group, label] = LABELS[key] ?? [data.bench, key];
      out.push({ group, label, xs: xs.map((x) => Math.max(x, 0.05)) });
    }
  }
  const order = [...new Set(Object.values(LABELS).map(([g]) => g))];
  return out.sort((a, b) => ((order.indexOf(a.group) + 99) % 99) - ((order.indexOf(b.group) + 99) % 99));
}

function q(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

const GOALS: Record<string, number> = {
  'message → pane': 50,
  'journal → event (real CLIs)': 100,
  'journal → event (synthetic appends)': 100,
  'hub queue': 50,
};

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function draw(series: Series[], caption: string): string {
  const W = 1250;
  const left = 360;
  const right = 190;
  const top = 70;
  const rowH = 26;
  const groups = [...new Set(series.map((s) => s.group))];
  const H = top + (series.length + groups.length) * rowH + 70;
  const [lo, hi] = [0.1, 5000];
  const x = (v: number) => left + ((Math.log10(Math.min(Math.max(v, lo), hi)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (W - left - right);
  const plotBottom = H - 50;
  const el: string[] = [];
  el.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  el.push(`<text x="${W / 2}" y="28" text-anchor="middle" font-size="18" font-weight="bold">Bria latency distributions (ms, log scale)</text>`);
  el.push(`<text x="${W / 2}" y="48" text-anchor="middle" font-size="12" fill="#555">${esc(caption)}</text>`);
  // Polling baseline band and goal lines first, so the boxes are drawn over them.
  el.push(`<rect x="${x(1000)}" y="${top - 8}" width="${x(2000) - x(1000)}" height="${plotBottom - top + 8}" fill="#fde2e2"/>`);
  el.push(`<text x="${(x(1000) + x(2000)) / 2}" y="${plotBottom + 38}" text-anchor="middle" font-size="11" fill="#b33">1–2 s poll interval</text>`);
  for (const v of [0.1, 1, 10, 100, 1000, 5000]) {
    el.push(`<line x1="${x(v)}" x2="${x(v)}" y1="${plotBottom}" y2="${plotBottom + 5}" stroke="#333"/>`);
    el.push(`<text x="${x(v)}" y="${plotBottom + 18}" text-anchor="middle" font-size="11">${v >= 1000 ? `${v / 1000} s` : `${v} ms`}</text>`);
  }
  el.push(`<line x1="${left}" x2="${W - right}" y1="${plotBottom}" y2="${plotBottom}" stroke="#333"/>`);
  let y = top;
  for (const g of groups) {
    el.push(`<text x="10" y="${y + 16}" font-size="13" font-weight="bold">${esc(g)}</text>`);
    const goal = GOALS[g];
    const rows = series.filter((t) => t.group === g).length;
    if (goal) {
      // Each goal is drawn only across the rows it applies to.
      el.push(`<line x1="${x(goal)}" x2="${x(goal)}" y1="${y + 6}" y2="${y + (rows + 1) * rowH}" stroke="#2a7" stroke-dasharray="5,4"/>`);
      el.push(`<text x="${x(goal) + 4}" y="${y + 16}" font-size="11" fill="#2a7">goal: p99 &lt; ${goal} ms</text>`);
    }
    y += rowH;
    for (const s of series.filter((t) => t.group === g)) {
      const v = [...s.xs].sort((a, b) => a - b);
      const [p1, p25, p50, p75, p99, max] = [q(v, 0.01), q(v, 0.25), q(v, 0.5), q(v, 0.75), q(v, 0.99), v.at(-1)!];
      const mid = y + rowH / 2;
      const colour = s.label.startsWith('baseline') ? '#c44' : '#369';
      el.push(`<text x="20" y="${mid + 4}" font-size="12">${esc(s.label)} (n=${v.length})</text>`);
      el.push(`<line x1="${x(p1)}" x2="${x(p99)}" y1="${mid}" y2="${mid}" stroke="${colour}"/>`);
      for (const w of [p1, p99]) el.push(`<line x1="${x(w)}" x2="${x(w)}" y1="${mid - 5}" y2="${mid + 5}" stroke="${colour}"/>`);
      el.push(
        `<rect x="${x(p25)}" y="${mid - 8}" width="${Math.max(1, x(p75) - x(p25))}" height="16" fill="${colour}" fill-opacity="0.25" stroke="${colour}"/>`,
      );
      el.push(`<line x1="${x(p50)}" x2="${x(p50)}" y1="${mid - 8}" y2="${mid + 8}" stroke="${colour}" stroke-width="2.5"/>`);
      el.push(`<circle cx="${x(max)}" cy="${mid}" r="2.5" fill="${colour}"/>`);
      el.push(`<text x="${W - right + 12}" y="${mid + 4}" font-size="11" fill="#333">p50 ${p50.toFixed(1)} · p99 ${p99.toFixed(1)}</text>`);
      y += rowH;
    }
  }
  el.push(`<text x="${left}" y="${H - 8}" font-size="11" fill="#555">box: p25–p75, thick line: median, whiskers: p1–p99, dot: max</text>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, Arial, sans-serif">\n${el.join('\n')}\n</svg>\n`;
}

const series = load();
if (series.length === 0) {
  console.error('no raw latency samples in bench-out/*.json; run `npm run bench` first');
  process.exit(1);
}
const resultsFile = path.join(outDir, 'results.jsonl');
const lines = existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8').trim().split('\n').filter(Boolean).length : 0;
const caption = `npm run bench, ${new Date().toISOString().slice(0, 10)}, 2 cores, Node ${process.versions.node}; ${lines} result line(s) in bench-out/results.jsonl`;
writeFileSync(svgPath, draw(series, caption));
console.log(`wrote ${path.relative(root, svgPath)} (${series.length} distributions)`);
const png = svgPath.replace(/\.svg$/, '.png');
const r = spawnSync('rsvg-convert', ['-o', png, svgPath], { encoding: 'utf8' });
if (r.status === 0) console.log(`wrote ${path.relative(root, png)}`);
else console.log('rsvg-convert not available; SVG only');
