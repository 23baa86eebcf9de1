import type { Api } from 'grammy';
import { ZodError } from 'zod';
import type { Logger } from '@bria/core/log';
import {
  type ClaimedRow,
  claimOutbox,
  type Db,
  markOutboxFailed,
  markOutboxRetry,
  markOutboxSent,
  outboxPartIds,
  recordOutboxPart,
  releaseOutbox,
  TELEGRAM_CHANNEL,
} from '@bria/core/services';
import { plainTextFallback } from '../render/plain-fallback.ts';
import { deliver, finishedPayload } from './deliver.ts';
import { backoffMs, classifySendError } from './telegram-errors.ts';

export interface OutboxSenderOptions {
  api: Api;
  db: Db;
  log: Logger;
  /** How often to look for due rows when nobody wakes the sender. */
  pollMs?: number;
  /** A claimed row is someone else's to retry only after this; must exceed the API request timeout. */
  leaseMs?: number;
  batch?: number;
}

/**
 * Sends the `telegram` outbox in id order, one row at a time. Exactly-once rests on two rules:
 * a row (or a final's part) is recorded as delivered in the same statement that stores its
 * Telegram message id, and nothing else happens between Telegram's answer and that statement.
 * The unavoidable window is a request that reached Telegram whose answer never came back (process
 * killed mid-request, connection cut after the server acted): the row's lease runs out and the
 * part is sent again, so the user may see that one part twice — never zero times. `stop()` lets
 * the request in flight finish and be recorded, so an orderly shutdown never opens the window.
 * When Telegram answered but the statement failed (Postgres restarting), the answer is kept in
 * memory and the row is only recorded on its next claim, never sent again (a final was
 * once shown twice after a database restart; docs/reliability.md).
 */
export class OutboxSender {
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  /** A wake that arrived while the loop was busy (claiming or sending): the next sleep is skipped. */
  private woken = false;
  private pausedUntil = 0;
  /** Rows Telegram took whose recording failed: their message ids, recorded on the next claim. */
  private readonly taken = new Map<string, number[]>();
  /** A final's parts Telegram took so far, kept beside the database's record of them. */
  private readonly partsTaken = new Map<string, number[]>();
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly batch: number;

  constructor(private readonly o: OutboxSenderOptions) {
    this.pollMs = o.pollMs ?? 500;
    this.leaseMs = o.leaseMs ?? 60_000;
    this.batch = o.batch ?? 10;
    // Markup Telegram cannot parse: the text is sent plain instead of the row failing (render/plain-fallback.ts).
    o.api.config.use(
      plainTextFallback((method, description) =>
        o.log.warn({ method, description: description.slice(0, 200) }, 'Telegram refused the markup; sent as plain text'),
      ),
    );
  }

  start(): void {
    this.loop ??= this.run().catch((error: unknown) => {
      this.o.log.error({ err: errName(error) }, 'outbox sender stopped by an unexpected error');
    });
  }

  /** Something was just enqueued: look now instead of at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      const pause = this.pausedUntil - Date.now();
      if (pause > 0) {
        await this.sleep(pause);
        continue;
      }
      let rows: ClaimedRow[];
      try {
        rows = await claimOutbox(this.o.db, { channel: TELEGRAM_CHANNEL, limit: this.batch, leaseMs: this.leaseMs });
      } catch (error) {
        this.o.log.warn({ err: errName(error) }, 'outbox claim failed; retrying');
        await this.sleep(this.pollMs * 4);
        continue;
      }
      if (rows.length === 0) {
        await this.sleep(this.pollMs);
        continue;
      }
      for (let i = 0; i < rows.length; i++) {
        if (this.stopping || this.pausedUntil > Date.now()) {
          await releaseOutbox(
            this.o.db,
            rows.slice(i).map((r) => r.id),
            new Date(Math.max(Date.now(), this.pausedUntil)),
          );
          break;
        }
        try {
          await this.sendOne(rows[i] as ClaimedRow);
        } catch (error) {
          // Recording the outcome failed (Postgres restarting, say): the loop must live on. The rows
          // still claimed come back when their lease runs out (one such error once stopped the sender
          // for good and every later final stayed pending; docs/reliability.md).
          this.o.log.warn({ err: errName(error) }, 'outbox bookkeeping failed; retrying after the lease');
          await this.sleep(this.pollMs * 4);
          break;
        }
      }
    }
  }

  private async sendOne(row: ClaimedRow): Promise<void> {
    const log = this.o.log.child({ outboxId: String(row.id), kind: row.kind, attempt: row.attempts, ...(row.sessionId ? { sessionId: row.sessionId } : {}) });
    const finished = finishedPayload(row);
    const key = String(row.id);
    const taken = this.taken.get(key);
    if (taken) {
      // Telegram took it on an earlier claim; only the record was missing (it throws again while
      // Postgres is still away, and the row comes back after its lease).
      await markOutboxSent(this.o.db, row.id, taken, new Date(), finished);
      this.taken.delete(key);
      log.info({ parts: taken.length }, 'outbox row recorded after its bookkeeping failed (not sent again)');
      return;
    }
    let ids: number[];
    try {
      const recorded = outboxPartIds(row.externalId);
      const inMemory = this.partsTaken.get(key) ?? [];
      ids = await deliver(row, inMemory.length > recorded.length ? inMemory : recorded, {
        api: this.o.api,
        db: this.o.db,
        onPart: (partIdsSoFar) => {
          this.partsTaken.set(key, [...partIdsSoFar]);
          return recordOutboxPart(this.o.db, row.id, partIdsSoFar, new Date(Date.now() + this.leaseMs));
        },
      });
    } catch (error) {
      if (error instanceof ZodError) {
        await markOutboxFailed(this.o.db, row.id, 'malformed payload', finished);
        log.error('outbox row has a payload this bot cannot render; marked failed');
        return;
      }
      const f = classifySendError(error);
      switch (f.kind) {
        case 'rate_limited':
          this.pausedUntil = Date.now() + f.retryAfterMs;
          await markOutboxRetry(this.o.db, row.id, new Date(this.pausedUntil), 'rate limited');
          log.warn({ retryAfterMs: f.retryAfterMs }, 'Telegram rate limit; pausing the outbox');
          return;
        case 'transient': {
          const wait = backoffMs(row.attempts);
          await markOutboxRetry(this.o.db, row.id, new Date(Date.now() + wait), f.reason);
          log.warn({ reason: f.reason, retryInMs: wait }, 'outbox send failed; will retry');
          return;
        }
        case 'permanent':
          await markOutboxFailed(this.o.db, row.id, f.reason, finished);
          log.error({ reason: f.reason }, 'outbox row refused by Telegram; not retried');
          return;
        default:
          f satisfies never;
      }
      return;
    }
    this.partsTaken.delete(key);
    this.taken.set(key, ids);
    await markOutboxSent(this.o.db, row.id, ids, new Date(), finished);
    this.taken.delete(key);
    log.debug({ parts: ids.length }, 'outbox row sent');
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wakeUp = undefined;
        self.woken = false;
        resolve();
      }
      this.wakeUp = done;
    });
  }
}

const errName = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message.slice(0, 200)}` : 'unknown');
