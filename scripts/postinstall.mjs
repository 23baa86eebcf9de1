// Runs after `npm install` at the root:
// 1. generates the Prisma client offline (Prisma's generator wants to locate a native schema
//    engine it does not use for generation; any existing executable satisfies it);
// 2. installs tools/prisma-diff (Prisma 6's WASM schema engine, kept out of the workspace),
//    used to write new migrations and by the drift test.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

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
