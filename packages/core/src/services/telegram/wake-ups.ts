import { PgListener } from '../../db/pg-listener.ts';
import { CHANGES_CHANNEL } from '../../db/repos/change-feed.ts';
import { TELEGRAM_CHANNEL } from '../../db/repos/telegram-outbox.ts';

/** A wake-up from the database: started once, stopped once; a lost connection is re-opened. */
export interface WakeUp {
  start(): Promise<void>;
  stop(): Promise<void>;
}

interface WakeUpOptions {
  databaseUrl: string;
  /** Called on every matching notification, and when listening (again): rows written meanwhile are looked at now. */
  onWake: () => void;
  /** The listener is unavailable for now (the caller's poll is the safety net). */
  onError: (err: Error) => void;
}

function wakeUp(o: WakeUpOptions, channel: string, matches: (payload: string) => boolean): WakeUp {
  // An unreachable database at start does not stop the caller: it keeps trying (`retryFromStart`).
  return new PgListener({
    databaseUrl: o.databaseUrl,
    channels: [channel],
    retryFromStart: true,
    onNotify: (_channel, payload) => {
      if (matches(payload)) o.onWake();
    },
    onListening: () => o.onWake(),
    onError: o.onError,
  });
}

/** The engine enqueued a row of the `telegram` outbox channel (`NOTIFY bria_outbox`). */
export function telegramOutboxWakeUp(o: WakeUpOptions): WakeUp {
  return wakeUp(o, 'bria_outbox', (payload) => payload === TELEGRAM_CHANNEL);
}

/** A session changed (the change feed `bria_changes`, payload `s:<id>`): its card may show something new. */
export function sessionChangeWakeUp(o: WakeUpOptions): WakeUp {
  return wakeUp(o, CHANGES_CHANNEL, (payload) => payload.startsWith('s:'));
}
