import pg from 'pg';
import type { Logger } from '@bria/core/log';

/**
 * Wakes the outbox sender the moment the engine enqueues a row (`NOTIFY bria_outbox`), so a final
 * leaves for Telegram without waiting for the sender's poll. The poll stays as the safety net, so a
 * lost connection only costs latency: it is re-opened with a growing pause.
 */
export class OutboxWake {
  private client: pg.Client | undefined;
  private stopped = false;
  private attempt = 0;

  constructor(private readonly o: { databaseUrl: string; log: Logger; onWake: () => void }) {}

  async start(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.o.databaseUrl });
    this.client = client;
    let retried = false;
    const retry = () => {
      if (retried || this.stopped) return;
      retried = true;
      client.end().catch(() => undefined);
      const delay = [500, 1_000, 2_000, 5_000, 10_000][Math.min(this.attempt++, 4)] ?? 10_000;
      setTimeout(() => void this.start(), delay).unref();
    };
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', (n) => {
      if (n.payload === 'telegram') this.o.onWake();
    });
    try {
      await client.connect();
      await client.query('LISTEN bria_outbox');
      this.attempt = 0;
      // Rows written while nobody listened are picked up now rather than at the next poll.
      this.o.onWake();
    } catch (err) {
      this.o.log.warn({ err: (err as Error).message }, 'outbox wake-up listener unavailable; polling only');
      retry();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.client?.end().catch(() => undefined);
  }
}
