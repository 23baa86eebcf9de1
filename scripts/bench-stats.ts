export interface Stats {
  n: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles (p99 of 200 samples is the 198th smallest), rounded to 0.01 ms. */
export function stats(xs: readonly number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? Number.NaN;
  const r = (x: number) => Math.round(x * 100) / 100;
  return { n: s.length, min: r(s[0] ?? Number.NaN), p50: r(at(50)), p90: r(at(90)), p99: r(at(99)), max: r(s.at(-1) ?? Number.NaN) };
}
