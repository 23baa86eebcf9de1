import { defineConfig } from 'prisma/config';

// Prisma's CLI is used for `generate` and Studio only: migrations are applied by Bria's own
// runner (packages/core/src/db/migrate.ts) because Prisma 7's migrate engine is a native download.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://bria@127.0.0.1:5432/bria' },
});
