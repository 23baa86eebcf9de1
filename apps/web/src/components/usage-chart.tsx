'use client';
import { useI18n } from './i18n-context.tsx';
import type { UsagePoint } from './types.ts';

const W = 320;
const H = 90;
const PAD = 4;

/**
 * Input tokens (≈ context in use) over the session as an inline SVG line; no chart library. Points
 * stand at their time (reports come unevenly). The axis labels are HTML around the SVG: the SVG
 * stretches to its box, which would distort text drawn inside it.
 */
export function UsageChart({ points }: { points: UsagePoint[] }) {
  const { t, locale } = useI18n();
  const values = points.map((p) => p.inputTokens ?? 0);
  if (values.length === 0) return null;
  const times = points.map((p) => Date.parse(p.at));
  const t0 = times[0]!;
  const span = times.at(-1)! - t0;
  const max = Math.max(...values, 1);
  const x = (i: number) =>
    span <= 0 ? (values.length === 1 ? W / 2 : PAD + (i * (W - 2 * PAD)) / (values.length - 1)) : PAD + ((times[i]! - t0) * (W - 2 * PAD)) / span;
  const y = (v: number) => H - PAD - (v / max) * (H - 2 * PAD);
  const line = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const fmt = new Intl.NumberFormat(locale);
  const time = new Intl.DateTimeFormat(locale, { timeStyle: 'short' });
  const latest = values.at(-1) ?? 0;
  return (
    <figure className="chart" data-testid="usage-figure">
      <div className="chart-plot">
        <div className="chart-y" aria-hidden="true">
          <span className="chart-axis-title" data-testid="chart-y-title">
            {t('usage.axisTokens')}
          </span>
          <span className="chart-ticks">
            <span>{fmt.format(max)}</span>
            <span>{fmt.format(0)}</span>
          </span>
        </div>
        <svg
          viewBox={`0 0 ${W} ${H}`}
          role="img"
          aria-label={t('usage.chartLabel', { points: values.length, latest: fmt.format(latest) })}
          preserveAspectRatio="none"
          data-testid="usage-chart"
        >
          <line x1={PAD} x2={W - PAD} y1={H - PAD} y2={H - PAD} className="chart-axis" />
          <line x1={PAD} x2={PAD} y1={PAD} y2={H - PAD} className="chart-axis" />
          <polygon points={`${x(0)},${H - PAD} ${line} ${x(values.length - 1)},${H - PAD}`} className="chart-area" />
          <polyline points={line} className="chart-line" />
          {values.length === 1 && <circle cx={x(0)} cy={y(values[0] ?? 0)} r={3} className="chart-dot" />}
        </svg>
      </div>
      <div className="chart-x" aria-hidden="true">
        <time dateTime={points[0]!.at}>{time.format(t0)}</time>
        <span className="chart-axis-title" data-testid="chart-x-title">
          {t('usage.axisTime')}
        </span>
        <time dateTime={points.at(-1)!.at}>{time.format(times.at(-1)!)}</time>
      </div>
    </figure>
  );
}

const BAR_H = 140;
/** Fills for up to eight computers (CSS classes, so both themes choose the colours). */
const SERIES = 8;

/**
 * Tokens per day as bars, one stacked segment per computer; no chart library. The days and the
 * legend are HTML around the SVG (the SVG stretches to its box). A table beside it carries the
 * same figures for screen readers and exact values.
 */
export function UsageDaysChart({
  bars,
  nodes,
  label,
}: {
  bars: { day: string; segments: { nodeId: string; tokens: number }[]; total: number }[];
  nodes: { id: string; name: string }[];
  label: string;
}) {
  const { locale } = useI18n();
  const fmt = new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 });
  const max = Math.max(1, ...bars.map((b) => b.total));
  const n = Math.max(1, bars.length);
  const slot = W / n;
  const bw = Math.max(1, slot * 0.7);
  const series = (id: string) =>
    Math.max(
      0,
      nodes.findIndex((x) => x.id === id),
    ) % SERIES;
  const used = nodes.filter((x) => bars.some((b) => b.segments.some((s) => s.nodeId === x.id)));
  return (
    <figure className="chart chart-days" data-testid="usage-days-chart">
      <div className="chart-plot">
        <div className="chart-y" aria-hidden="true">
          <span className="chart-ticks">
            <span>{fmt.format(max)}</span>
            <span>{fmt.format(0)}</span>
          </span>
        </div>
        <svg viewBox={`0 0 ${W} ${BAR_H}`} role="img" aria-label={label} preserveAspectRatio="none">
          <line x1={0} x2={W} y1={BAR_H - 0.5} y2={BAR_H - 0.5} className="chart-axis" />
          {bars.map((b, i) => {
            let y = BAR_H;
            return (
              <g key={b.day} data-day={b.day}>
                {b.segments.map((s) => {
                  const h = (s.tokens / max) * (BAR_H - PAD);
                  y -= h;
                  return <rect key={s.nodeId} x={i * slot + (slot - bw) / 2} y={y} width={bw} height={h} className={`chart-bar series-${series(s.nodeId)}`} />;
                })}
              </g>
            );
          })}
        </svg>
      </div>
      <div className="chart-x" aria-hidden="true">
        <span>{bars[0]?.day.slice(5)}</span>
        <span>{bars.at(-1)?.day.slice(5)}</span>
      </div>
      {used.length > 0 && (
        <figcaption className="chart-legend small">
          {used.map((x) => (
            <span key={x.id}>
              <span className={`chart-swatch series-${series(x.id)}`} aria-hidden="true" /> {x.name}
            </span>
          ))}
        </figcaption>
      )}
    </figure>
  );
}
