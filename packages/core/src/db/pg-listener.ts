import pg from 'pg';

/**
 * The one reconnect table of every LISTEN connection: quick at first (a Postgres restart takes a
 * few seconds), then every 5 s. Each user also has a safety poll, so a long outage costs latency only.
 */
export const LISTEN_RETRY_MS = [250, 500, 1_000, 2_000, 5_000] as const;

export interface PgListenerOptions {
  databaseUrl: string;
  channels: readonly string[];
  onNotify: (channel: string, payload: string) => void;
  /**
   * LISTEN is in place. `reconnected` is true after a lost connection came back: NOTIFYs sent
   * meanwhile are gone, so the caller catches up from the database.
   */
  onListening?: (reconnected: boolean) => void;
  /** A live connection was lost or a reconnect attempt failed; the listener keeps retrying. */
  onError?: (err: Error) => void;
  /**
   * Keep trying when the very first attempt fails too (`start()` then resolves). Without it
   * `start()` rejects and nothing is retried: a process that cannot reach Postgres at start fails.
   */
  retryFromStart?: boolean;
}

/**
 * One LISTEN connection (Prisma's pool cannot LISTEN) that re-opens itself with `LISTEN_RETRY_MS`
 * when the connection drops (Postgres restart, a terminated backend, network), used by the engine,
 * the hub, the bot's outbox wake-up and the dashboard's change feed.
 */
export class PgListener {
  private client: pg.Client | null = null;
  private listening = false;
  private everListened = false;
  private stopped = false;
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private first: Promise<void> | undefined;
  private waiters: (() => void)[] = [];

  constructor(private readonly o: PgListenerOptions) {}

  /** Opens the connection; resolves once LISTEN is in place (see `retryFromStart` for a failure). */
  start(): Promise<void> {
    this.first ??= this.connect().catch((err: Error) => {
      if (!this.o.retryFromStart) {
        this.stopped = true;
        this.release();
        throw err;
      }
      this.o.onError?.(err);
      this.schedule();
    });
    return this.first;
  }

  /** Resolves when LISTEN is in place now, or once it is again after a drop (or on stop). */
  ready(): Promise<void> {
    if (this.listening || this.stopped) return Promise.resolve();
    if (!this.everListened && this.first) return this.first;
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.listening = false;
    this.release();
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.o.databaseUrl });
    this.client = client;
    let live = false;
    const lost = (err: Error) => {
      if (!live) return; // a failing attempt is reported by its rejection
      live = false;
      client.end().catch(() => {});
      if (this.client !== client || this.stopped) return;
      this.client = null;
      this.listening = false;
      this.o.onError?.(err);
      this.schedule();
    };
    client.on('error', lost);
    client.on('end', () => lost(new Error('connection ended')));
    // Delivered even before `connect` returns: a NOTIFY can arrive in the same packet as LISTEN's reply.
    client.on('notification', (n) => {
      if (this.client === client && !this.stopped) this.o.onNotify(n.channel, n.payload ?? '');
    });
    try {
      await client.connect();
      for (const channel of this.o.channels) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      client.end().catch(() => {});
      if (this.client === client) this.client = null;
      throw err;
    }
    if (this.stopped || this.client !== client) {
      await client.end().catch(() => {});
      return;
    }
    live = true;
    this.listening = true;
    this.attempt = 0;
    const reconnected = this.everListened;
    this.everListened = true;
    this.release();
    this.o.onListening?.(reconnected);
  }

  private schedule(): void {
    if (this.stopped) return;
    const delay = LISTEN_RETRY_MS[Math.min(this.attempt++, LISTEN_RETRY_MS.length - 1)];
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.stopped) return;
      this.connect().catch((err: Error) => {
        this.o.onError?.(err);
        this.schedule();
      });
    }, delay);
    this.timer.unref();
  }

  private release(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
