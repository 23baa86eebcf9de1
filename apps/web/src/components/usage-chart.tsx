'use client';
import { useI18n } from './i18n-context.tsx';
import type { UsagePoint } from './types.ts';

const W = 320;
const H = 90;
const PAD = 4;

/** Input tokens (≈ context in use) over the session as an inline SVG line; no chart library. */
export function UsageChart({ points }: { points: UsagePoint[] }) {
  const { t, locale } = useI18n();
  const values = points.map((p) => p.inputTokens ?? 0);
  if (values.length === 0) return null;
  const max = Math.max(...values, 1);
  const x = (i: number) => (values.length === 1 ? W / 2 : PAD + (i * (W - 2 * PAD)) / (values.length - 1));
  const y = (v: number) => H - PAD - (v / max) * (H - 2 * PAD);
  const line = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const fmt = new Intl.NumberFormat(locale);
  const latest = values.at(-1) ?? 0;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={t('usage.chartLabel', { points: values.length, latest: fmt.format(latest) })} preserveAspectRatio="none" data-testid="usage-chart">
        <line x1={PAD} x2={W - PAD} y1={H - PAD} y2={H - PAD} className="chart-axis" />
        <polygon points={`${x(0)},${H - PAD} ${line} ${x(values.length - 1)},${H - PAD}`} className="chart-area" />
        <polyline points={line} className="chart-line" />
        {values.length === 1 && <circle cx={x(0)} cy={y(values[0] ?? 0)} r={3} className="chart-dot" />}
      </svg>
      <figcaption className="muted small">{fmt.format(0)} – {fmt.format(max)}</figcaption>
    </figure>
  );
}
