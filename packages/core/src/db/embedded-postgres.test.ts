import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, type RunningPostgres, startEmbeddedPostgres } from './embedded-postgres.ts';

/**
 * The embedded server found already running on a data directory (a launcher killed without its
 * Ctrl-C, `npm run nodes` next to `npm start`) is reused where it listens, not at the port asked for.
 */
const dir = mkdtempSync(path.join(tmpdir(), 'bria-embedded-pg-'));
let first: RunningPostgres | undefined;
afterAll(async () => {
  await first?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function answers(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ port: string }>("select setting as port from pg_settings where name = 'port'");
    return Number(r.rows[0]?.port);
  } finally {
    await c.end();
  }
}

describe('embedded PostgreSQL', () => {
  it('reuses a server already running on the data directory at its own port, and says so', async () => {
    const portA = await freePort();
    first = await startEmbeddedPostgres({ dir, port: portA });
    expect(first.startedHere).toBe(true);
    expect(await answers(first.url)).toBe(portA);

    const portB = await freePort();
    const logged: string[] = [];
    const second = await startEmbeddedPostgres({ dir, port: portB, log: (l) => logged.push(l) });
    expect(second.startedHere).toBe(false);
    expect(second.pid).toBe(first.pid);
    expect(second.port).toBe(portA);
    expect(await answers(second.url)).toBe(portA);
    expect(logged.join('\n')).toMatch(new RegExp(`Reusing .*127\\.0\\.0\\.1:${portA} \\(not on ${portB}`));
  }, 120_000);
});
