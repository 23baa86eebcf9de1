import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
export const diffToolDir = path.join(repoRoot, 'tools', 'prisma-diff');

/**
 * Writes migration SQL offline with Prisma 6's WASM schema engine (tools/prisma-diff, installed
 * apart from the workspace so two Prisma versions never meet). It still wants a reachable
 * Postgres even for schema-to-schema diffs, hence `scratchUrl`.
 */
export async function prismaDiff(opts: { from: string | 'empty'; to: string; scratchUrl: string }): Promise<string> {
  const bin = path.join(diffToolDir, 'node_modules', '.bin', 'prisma');
  if (!existsSync(bin)) {
    throw new Error('tools/prisma-diff is not installed: run `npm ci --prefix tools/prisma-diff` (npm registry only).');
  }
  const work = path.join(diffToolDir, '.work');
  mkdirSync(work, { recursive: true });
  const derive = (file: string, name: string) => {
    // Prisma 7 forbids `url` in the datasource; Prisma 6 needs it. Derive a copy.
    const text = readFileSync(file, 'utf8')
      .replace(/generator client \{[^}]*\}/, '')
      .replace(/datasource db \{[^}]*\}/, 'datasource db {\n  provider = "postgresql"\n  url      = env("BRIA_DIFF_URL")\n}');
    const out = path.join(work, name);
    writeFileSync(out, text);
    return out;
  };
  const to = derive(opts.to, 'to.prisma');
  const fromArgs = opts.from === 'empty' ? ['--from-empty'] : ['--from-schema-datamodel', derive(opts.from, 'from.prisma')];
  const { stdout } = await run(bin, ['migrate', 'diff', '--config', 'prisma.config.mjs', ...fromArgs, '--to-schema-datamodel', to, '--script'], {
    cwd: diffToolDir,
    env: {
      ...process.env,
      BRIA_DIFF_URL: opts.scratchUrl,
      BRIA_DIFF_SCHEMA: to,
      PRISMA_SCHEMA_ENGINE_BINARY: '/bin/true',
      PRISMA_QUERY_ENGINE_LIBRARY: '/bin/true',
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
    },
    maxBuffer: 32 * 1024 * 1024,
  });
  return stdout;
}

/** True when the diff output contains no statements. */
export function isEmptyMigration(sql: string): boolean {
  return sql.split('\n').every((l) => l.trim() === '' || l.trim().startsWith('--'));
}
