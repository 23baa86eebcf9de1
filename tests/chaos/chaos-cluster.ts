import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type RunningPostgres, startEmbeddedPostgres } from '../../packages/core/src/db/embedded-postgres.ts';
import { migrate } from '../../packages/core/src/db/migrate.ts';
import { restartablePort } from './ports.ts';

/**
 * The suite's own PostgreSQL cluster (never the shared test cluster: a restart here must not
 * disturb other test files). One per process; every run gets a fresh database in it. `restart`
 * stops the server and starts it again on the same port and data directory.
 */
export class ChaosCluster {
  private running: RunningPostgres | null = null;
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'bria-chaos-pg-'));
  private port = 0;

  async start(): Promise<void> {
    this.port ||= await restartablePort();
    this.running = await startEmbeddedPostgres({ dir: this.dir, port: this.port, database: 'postgres' });
  }

  get adminUrl(): string {
    if (!this.running) throw new Error('cluster not running');
    return this.running.adminUrl;
  }

  /** Fast shutdown (every connection is cut), a pause, then the same server again. */
  async restart(pauseMs: number): Promise<void> {
    await this.running?.stop();
    this.running = null;
    await new Promise((r) => setTimeout(r, pauseMs));
    for (let i = 0; ; i++) {
      try {
        await this.start();
        return;
      } catch (err) {
        // The old postmaster may still hold the port for a moment.
        if (i > 20) throw err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  async createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
    const name = `chaos_${randomBytes(5).toString('hex')}`;
    const c = new pg.Client({ connectionString: this.adminUrl });
    await c.connect();
    await c.query(`create database ${name}`);
    await c.end();
    const url = new URL(this.adminUrl);
    url.pathname = `/${name}`;
    await migrate({ url: url.toString() });
    return {
      url: url.toString(),
      drop: async () => {
        const d = new pg.Client({ connectionString: this.adminUrl });
        await d.connect();
        await d.query(`drop database if exists ${name} with (force)`);
        await d.end();
      },
    };
  }

  async stop(): Promise<void> {
    await this.running?.stop();
    this.running = null;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
