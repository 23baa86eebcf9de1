/** Shapes of the Usage page (tRPC `usage.summary`) and how its figures are written. Pure, for tests. */
export interface Tokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const tokenTotal = (t: Tokens): number => t.input + t.output + t.cacheRead + t.cacheWrite;

/** "$0.0123" below a cent, "$1.23" otherwise: an estimate shows what it rests on, not false precision. */
export function usd(v: number, locale: string): string {
  const digits = v !== 0 && Math.abs(v) < 0.01 ? 4 : 2;
  return new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(v);
}

/** Compact token counts for tight cells: 1234 → "1.2K", 2500000 → "2.5M". */
export function compact(n: number, locale: string): string {
  return new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 }).format(n);
}

/**
 * Bars of the per-day chart: every day of the period (days without turns are empty bars, not
 * gaps), each with one segment per computer in the order of `nodes`.
 */
export function dayBars(
  rows: readonly { day: string; nodeId: string; tokens: Tokens }[],
  period: { from: string; to: string },
  nodes: readonly string[],
): { day: string; segments: { nodeId: string; tokens: number }[]; total: number }[] {
  const byDay = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const m = byDay.get(r.day) ?? new Map<string, number>();
    m.set(r.nodeId, (m.get(r.nodeId) ?? 0) + tokenTotal(r.tokens));
    byDay.set(r.day, m);
  }
  const out: { day: string; segments: { nodeId: string; tokens: number }[]; total: number }[] = [];
  for (let t = Date.parse(period.from); t < Date.parse(period.to); t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    const m = byDay.get(day);
    const segments = nodes.map((nodeId) => ({ nodeId, tokens: m?.get(nodeId) ?? 0 })).filter((s) => s.tokens > 0);
    out.push({ day, segments, total: segments.reduce((a, s) => a + s.tokens, 0) });
  }
  return out;
}
