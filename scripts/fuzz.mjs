// `npm run fuzz`: the fuzz suite (tests/fuzz/*.fuzz.test.ts) with many runs per property.
// `npm run fuzz -- --minutes 10` runs each property for 10 minutes instead; `--runs N` sets the count;
// FUZZ_SEED=<seed> replays a failure (the seed is printed at the start of each property and on failure).
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const env = { ...process.env, VITEST_RETRY: '0' };
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--minutes') env.FUZZ_MINUTES = args[++i];
  else if (args[i] === '--runs') env.FUZZ_RUNS = args[++i];
  else files.push(args[i]);
}
env.FUZZ_RUNS ??= '2000';
const r = spawnSync('npx', ['vitest', 'run', '--reporter=default', ...(files.length ? files : ['tests/fuzz/'])], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
