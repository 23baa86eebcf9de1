/** Small seeded PRNG (mulberry32) so property tests replay exactly from a seed. */
export function prng(seed: number): { next: () => number; int: (n: number) => number; pick: <T>(xs: readonly T[]) => T; chance: (p: number) => boolean } {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    pick: <T>(xs: readonly T[]): T => {
      const x = xs[int(xs.length)];
      if (x === undefined) throw new Error('pick from empty list');
      return x;
    },
    chance: (p: number) => next() < p,
  };
}
