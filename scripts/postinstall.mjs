// Runs after `npm install` at the root:
// 1. generates the Prisma client offline (Prisma's generator wants to locate a native schema
//    engine it does not use for generation; any existing executable satisfies it);
// 2. installs tools/prisma-diff (Prisma 6's WASM schema engine, kept out of the workspace),
//    used to write new migrations and by the drift test.
import { spawnSync } from 'node:child_process';
import { existsSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';

function step(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

step('npx', ['prisma', 'generate'], {
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/true',
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
});
if (!existsSync('tools/prisma-diff/node_modules/.bin/prisma')) {
  step('npm', ['ci', '--prefix', 'tools/prisma-diff', '--no-audit', '--no-fund', '--loglevel=error']);
}
// 3. the pinned CLIs own `node_modules/.bin/claude` and `codex`: the matrix's aliased older
//    releases (claude-code-prev1…, codex-prev1…; docs/cli-versions.md) declare the same bin names,
//    and npm links whichever it meets first, so an incremental install may point them at an old one.
for (const [name, target] of [
  ['claude', '../@anthropic-ai/claude-code/bin/claude.exe'],
  ['codex', '../@openai/codex/bin/codex.js'],
]) {
  const link = `node_modules/.bin/${name}`;
  if (!existsSync(`node_modules/.bin/${target}`)) continue;
  if (readlinkOr(link) === target) continue;
  rmSync(link, { force: true });
  symlinkSync(target, link);
}

function readlinkOr(path) {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}
