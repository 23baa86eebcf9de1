// Prisma 6 config used only by diff.mjs: the WASM schema engine talks to a scratch database
// through adapter-pg, so no native engine download is needed.
import { PrismaPg } from '@prisma/adapter-pg';
import { defineConfig } from 'prisma/config';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: process.env.BRIA_DIFF_SCHEMA,
  adapter: async () => new PrismaPg({ connectionString: process.env.BRIA_DIFF_URL, idleTimeoutMillis: 1 }),
});
