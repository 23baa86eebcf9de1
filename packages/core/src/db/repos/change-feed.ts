import { EventEmitter, on } from 'node:events';
import pg from 'pg';

/** What the `bria_changes` triggers announce: only ids, never content. */
export type Change = { kind: 'session'; id: string } | { kind: 'node'; id: string } | { kind: 'resync' };

export const CHANGES_CHANNEL = 'bria_changes';
const RECONNECT_MS = [250, 500, 1000, 2000, 5000] as const;

export function parseChange(payload: string | undefined): Change | null {
  const m = /^([sn]):([0-9a-f-]{36})$/.exec(payload ?? '');
  if (!m?.[2]) return null;
  return { kind: m[1] === 's' ? 'session' : 'node', id: m[2] };
}

/**
 * One LISTEN connection per process, shared by every subscriber (Prisma's pool cannot LISTEN).
 * Connects on the first subscriber and reconnects with a fixed backoff; after a reconnect it
 * emits `resync`, because NOTIFYs sent while it was away are gone and pages must reload.
 */
export class ChangeFeed {
  private readonly emitter = new EventEmitter();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private attempt = 0;
  private closed = false;
  private everConnected = false;

  constructor(private readonly databaseUrl: string, private readonly onError: (err: Error) => void = () => {}) {
    this.emitter.setMaxListeners(0);
  }

  /** Yields changes until `signal` aborts. The first item is `resync` once the feed listens. */
  async *stream(signal: AbortSignal): AsyncGenerator<Change> {
    const iterator = on(this.emitter, 'change', { signal });
    try {
      await this.ensure();
      yield { kind: 'resync' };
      for await (const [change] of iterator) yield change as Change;
    } catch (err) {
      if ((err as Error).name !== 'AbortError') throw err;
    }
  }

  /** Resolves once LISTEN is in place (tests wait for this before writing). */
  ensure(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => { this.connecting = null; });
    return this.connecting;
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('notification', (n) => {
      const change = n.channel === CHANGES_CHANNEL ? parseChange(n.payload) : null;
      if (change) this.emitter.emit('change', change);
    });
    client.on('error', (err) => {
      this.onError(err);
      this.drop(client);
    });
    client.on('end', () => this.drop(client));
    await client.connect();
    await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    if (this.closed) return void (await client.end());
    this.client = client;
    this.attempt = 0;
    if (this.everConnected) this.emitter.emit('change', { kind: 'resync' } satisfies Change);
    this.everConnected = true;
  }

  private drop(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => {});
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const delay = RECONNECT_MS[Math.min(this.attempt++, RECONNECT_MS.length - 1)];
    setTimeout(() => {
      if (this.closed || this.client) return;
      this.ensure().catch((err: Error) => {
        this.onError(err);
        this.scheduleReconnect();
      });
    }, delay).unref();
  }
}
