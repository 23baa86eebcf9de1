import { PgListener } from '@bria/core/db';
import type { Logger } from '@bria/core/log';

/**
 * Wakes the outbox sender the moment the engine enqueues a row (`NOTIFY bria_outbox`), so a final
 * leaves for Telegram without waiting for the sender's poll. The poll stays as the safety net, so a
 * lost connection only costs latency: `PgListener` re-opens it, and an unreachable database at
 * start does not stop the bot.
 */
export class OutboxWake {
  private readonly listener: PgListener;

  constructor(o: { databaseUrl: string; log: Logger; onWake: () => void }) {
    this.listener = new PgListener({
      databaseUrl: o.databaseUrl,
      channels: ['bria_outbox'],
      onNotify: (_channel, payload) => {
        if (payload === 'telegram') o.onWake();
      },
      // Rows written while nobody listened are picked up now rather than at the next poll.
      onListening: () => o.onWake(),
      onError: (err) => o.log.warn({ err: err.message }, 'outbox wake-up listener unavailable; polling only'),
      retryFromStart: true,
    });
  }

  start(): Promise<void> {
    return this.listener.start();
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }
}
