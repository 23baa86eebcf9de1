// `npm run db:generate`: regenerate the Prisma client after editing prisma/schema.prisma.
import { spawnSync } from 'node:child_process';
const r = spawnSync('npx', ['prisma', 'generate'], {
  stdio: 'inherit',
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/true', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
});
process.exit(r.status ?? 1);
