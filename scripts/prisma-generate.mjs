// Runs after `npm install` at the root: generates the Prisma client offline.
// Prisma's generator insists on locating a native schema engine even though generation
// does not use it; pointing it at an existing executable keeps `generate` offline.
import { spawnSync } from 'node:child_process';
const r = spawnSync('npx', ['prisma', 'generate'], {
  stdio: 'inherit',
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/true', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
});
process.exit(r.status ?? 1);
