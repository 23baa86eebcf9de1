// `npm test`: every test of the project — vitest (unit, integration with real Postgres, tmux and
// the real CLIs) and then Playwright (browser tests against a production build in Chromium).
// Ends with one summary line "Tests: N passed, N failed" and a non-zero exit on any failure.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const out = path.resolve('.tmp/test-results');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const extra = process.argv.slice(2);

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

let passed = 0;
let failed = 0;

// The lint step: biome's linter and formatter over the whole tree (`npm run format` fixes the
// formatting). A finding fails the run like a failed test; the tests still run so every result shows.
if (extra.length === 0) {
  const lintCode = run('npx', ['biome', 'check', '.']);
  if (lintCode === 0) passed += 1;
  else {
    failed += 1;
    console.error('\nLint: biome check found problems (npm run format fixes formatting; see above).');
  }
}

const vitestJson = path.join(out, 'vitest.json');
const vitestCode = run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`, ...extra]);
if (existsSync(vitestJson)) {
  const r = JSON.parse(readFileSync(vitestJson, 'utf8'));
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  // A failing hook or an unloadable file fails its suite without failing a test: count it.
  if (vitestCode !== 0 && !r.numFailedTests) failed += Math.max(1, r.numFailedTestSuites ?? 0);
} else if (vitestCode !== 0) {
  failed += 1;
}

const pwConfig = 'e2e/playwright.config.ts';
if (existsSync(pwConfig) && extra.length === 0) {
  const pwJson = path.join(out, 'playwright.json');
  const pwCode = run('npx', ['playwright', 'test', '-c', pwConfig, '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson });
  let pwFailed = 0;
  if (existsSync(pwJson)) {
    const s = JSON.parse(readFileSync(pwJson, 'utf8')).stats ?? {};
    passed += (s.expected ?? 0) + (s.flaky ?? 0);
    pwFailed = s.unexpected ?? 0;
  }
  // A web server that never came up fails the run without any test result.
  failed += pwCode !== 0 ? Math.max(1, pwFailed) : pwFailed;
}

console.log(`\nTests: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
