// `node scripts/cli-matrix.mjs [pinned|prev1|prev2|<claude version>:<codex version> …]`: runs the
// real-CLI executor and hooks suites once per named install pair (default: all three), one after
// the other, and prints one result line each for the README table "Verified CLI versions"
// (docs/cli-versions.md). One test file at a time: these suites wait on real TUIs and a loaded
// machine turns their outer bounds into failures. Prefix with `nice -n 10` on a shared machine.
// Exit code: 1 on any failure.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The suites that drive the real CLIs through tmux and their permission hooks. */
export const MATRIX_SUITES = [
  // First: that the chosen installs are the ones that run (`--version` of each).
  'packages/testkit/src/cli-homes.test.ts',
  'apps/node-agent/src/executors/claude-session.test.ts',
  'apps/node-agent/src/executors/codex-session.test.ts',
  'apps/node-agent/src/executors/activity-real.test.ts',
  'apps/node-agent/src/executors/session-choices-real.test.ts',
  'apps/node-agent/src/hooks/permission-hooks-claude.test.ts',
  'apps/node-agent/src/hooks/permission-hooks-codex.test.ts',
  'apps/node-agent/src/hooks/permission-answers-claude.test.ts',
  'tests/scenarios/permission-prompts.test.ts',
  'tests/scenarios/permission-codex.test.ts',
  'tests/scenarios/permission-wait.test.ts',
];

const wishes = process.argv.slice(2);
const out = path.resolve('.tmp/cli-matrix');
mkdirSync(out, { recursive: true });
const lines = [];
let failedAny = false;
for (const wish of wishes.length ? wishes : ['pinned', 'prev1', 'prev2']) {
  const [claude, codex = claude] = wish.split(':');
  const json = path.join(out, `${wish.replace(/[^\w.-]/g, '_')}.json`);
  const env = { ...process.env, BRIA_TEST_CLAUDE_VERSION: claude, BRIA_TEST_CODEX_VERSION: codex, VITEST_RETRY: process.env.VITEST_RETRY ?? '0' };
  const started = Date.now();
  const r = spawnSync('npx', ['vitest', 'run', '--maxWorkers=1', '--reporter=default', '--reporter=json', `--outputFile.json=${json}`, ...MATRIX_SUITES], {
    stdio: 'inherit',
    env,
  });
  let passed = 0;
  let failed = r.status === 0 ? 0 : 1;
  try {
    const report = JSON.parse(readFileSync(json, 'utf8'));
    passed = report.numPassedTests ?? 0;
    failed = (report.numFailedTests ?? 0) || (r.status === 0 ? 0 : Math.max(1, report.numFailedTestSuites ?? 0));
  } catch {}
  if (failed) failedAny = true;
  lines.push(`${wish}: claude ${claude}, codex ${codex}: ${passed} passed, ${failed} failed (${Math.round((Date.now() - started) / 1000)} s)`);
}
console.log(`\nCLI matrix\n${lines.join('\n')}`);
process.exit(failedAny ? 1 : 0);
