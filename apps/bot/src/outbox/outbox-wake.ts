import type { Logger } from '@bria/core/log';
import { telegramOutboxWakeUp, type WakeUp } from '@bria/core/services';

/**
 * Wakes the outbox sender the moment the engine enqueues a row, so a final leaves for Telegram without
 * waiting for the sender's poll (core `telegramOutboxWakeUp`; rows written while nobody listened are
 * picked up as soon as it listens). The poll stays as the safety net, so a lost connection only costs
 * latency, and an unreachable database at start does not stop the bot.
 */
export class OutboxWake {
  private readonly listener: WakeUp;

  constructor(o: { databaseUrl: string; log: Logger; onWake: () => void }) {
    this.listener = telegramOutboxWakeUp({
      databaseUrl: o.databaseUrl,
      onWake: o.onWake,
      onError: (err) => o.log.warn({ err: err.message }, 'outbox wake-up listener unavailable; polling only'),
    });
  }

  start(): Promise<void> {
    return this.listener.start();
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }
}
