// The bot as its own process (`apps/bot/src/main.ts`), so a test can SIGKILL it mid-turn and start
// it again against the same database and the same fake Bot API.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '../../packages/testkit/src/system.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface BotProcessOptions {
  databaseUrl: string;
  apiRoot: string;
  token: string;
  allowedUsers: number[];
  dataDir: string;
  logFile: string;
  /** Outbox lease; a short one lets a restarted bot retry a row the killed one held. */
  leaseMs?: number;
  webhook?: { url: string; secret: string; port: number };
}

export class BotProcess {
  private child: ChildProcess | null = null;

  constructor(private readonly o: BotProcessOptions) {}

  /** Starts the process and waits until it says it is polling (or serving its webhook). */
  async start(): Promise<void> {
    const o = this.o;
    const out = createWriteStream(o.logFile, { flags: 'a' });
    const env: Record<string, string> = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: o.dataDir,
      TELEGRAM_BOT_TOKEN: o.token,
      TELEGRAM_API_ROOT: o.apiRoot,
      TELEGRAM_ALLOWED_USERS: o.allowedUsers.join(','),
      DATABASE_URL: o.databaseUrl,
      BRIA_DATA_DIR: o.dataDir,
      BRIA_BOT_OUTBOX_LEASE_MS: String(o.leaseMs ?? 4000),
      LOG_LEVEL: 'info',
      ...(o.webhook ? { TELEGRAM_WEBHOOK_URL: o.webhook.url, TELEGRAM_WEBHOOK_SECRET: o.webhook.secret, TELEGRAM_WEBHOOK_PORT: String(o.webhook.port) } : {}),
    };
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/bot/src/main.ts'], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    this.child = child;
    const mark = this.log().split('\n').length;
    await waitUntil(
      'the bot process running',
      async () => {
        if (child.exitCode !== null) throw new Error(`bot exited with ${child.exitCode}: ${this.log().slice(-2000)}`);
        return this.log()
          .split('\n')
          .slice(mark - 1)
          .some((l) => l.includes('Telegram bot running'));
      },
      30_000,
    );
  }

  get pid(): number | null {
    return this.child?.exitCode === null ? (this.child.pid ?? null) : null;
  }

  /** SIGKILL: no orderly stop, nothing in flight is recorded. */
  async kill(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null) return;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await gone;
    this.child = null;
  }

  async stop(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null) return;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await Promise.race([gone, new Promise((r) => setTimeout(r, 5000))]);
    if (c.exitCode === null) await this.kill();
    this.child = null;
  }

  log(): string {
    try {
      return readFileSync(this.o.logFile, 'utf8');
    } catch {
      return '';
    }
  }
}
