import fc from 'fast-check';

/**
 * The fuzz suite's one convention (docs/reliability.md, "Fuzz suite"): every `tests/fuzz/*.fuzz.test.ts`
 * takes its parameters from here.
 * - `FUZZ_RUNS`: runs per property (default 25: a few seconds per file inside `npm test`);
 * - `FUZZ_MINUTES`: instead of a count, run each property for this long (`npm run fuzz -- --minutes 10`);
 * - `FUZZ_SEED`: replay a failure (the seed and path are printed with every counterexample, and the
 *   seed of every run at its start); `FUZZ_PATH` narrows the replay to the shrunk case.
 */
const minutes = Number(process.env.FUZZ_MINUTES ?? 0);
export const FUZZ_SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : (Date.now() ^ (process.pid << 8)) | 0;

export function fuzzParams<T>(name: string): fc.Parameters<T> {
  const numRuns = minutes > 0 ? Number.MAX_SAFE_INTEGER : Number(process.env.FUZZ_RUNS ?? 25);
  console.log(`[fuzz] ${name}: seed=${FUZZ_SEED} ${minutes > 0 ? `minutes=${minutes}` : `runs=${numRuns}`} (replay: FUZZ_SEED=${FUZZ_SEED})`);
  return {
    seed: FUZZ_SEED,
    numRuns,
    ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}),
    ...(minutes > 0 ? { interruptAfterTimeLimit: minutes * 60_000, markInterruptAsFailure: false } : {}),
    endOnFailure: true,
    reporter: (out) => {
      if (out.failed)
        throw new Error(`[fuzz] ${name} failed: replay with FUZZ_SEED=${out.seed} FUZZ_PATH=${out.counterexamplePath}\n${fc.defaultReportMessage(out)}`);
      console.log(`[fuzz] ${name}: ${out.numRuns} runs passed (seed=${out.seed}${out.interrupted ? ', stopped at the time limit' : ''})`);
    },
  };
}

/** The vitest timeout for one property: its time limit plus room, or a generous bound for a count. */
export function fuzzTimeoutMs(): number {
  return minutes > 0 ? minutes * 60_000 + 120_000 : 60 * 60_000;
}

/** Counts shared with the report (docs/reliability.md records them for long runs). */
export const fuzzCounts: Record<string, number> = {};
export function count(key: string, n = 1): void {
  fuzzCounts[key] = (fuzzCounts[key] ?? 0) + n;
}
