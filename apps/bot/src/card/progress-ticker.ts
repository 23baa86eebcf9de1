import type { Api } from 'grammy';
import type { Logger } from '@bria/core/log';
import { type Db, listCardsBehind, noteCardShown, sessionChangeWakeUp, type WakeUp } from '@bria/core/services';
import { classifySendError } from '../outbox/telegram-errors.ts';
import { showCard } from './card-service.ts';

/**
 * At most one edit of a chat's card every this many ms from progress (any card edit counts): 15 a
 * minute, so the final, notices and the card's own state edits still fit under Telegram's 20
 * changes a minute per chat. At 3 s (20 a minute) a turn of constant progress longer than a minute
 * had its final refused with a 429 (a whole-suite run on a busy machine, live-progress.test.ts).
 */
export const PROGRESS_EDIT_GAP_MS = 4_000;

/**
 * Live progress on the Telegram card (issue 15): when a working session's activity changes
 * (`Session.activityAt`, raised by the engine from the journal), the card the chat shows for it is
 * edited, no sooner than PROGRESS_EDIT_GAP_MS after that card's last edit (`cardEditedAt`, any cause),
 * so a burst of 200 tool calls costs a handful of edits and never a 429. Changes in between are
 * simply superseded: the edit shows the newest activity. Progress is display only: it does not go
 * through the outbox, so it never holds a final or a notice back; a failed edit is dropped (the
 * next change tries again). A background session's card is not the chat's card: it is never edited
 * here, so progress never steals focus.
 *
 * Woken by the session change feed (core `sessionChangeWakeUp`), with a poll as the safety net.
 */
export class ProgressTicker {
  private readonly listener: WakeUp;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private pausedUntil = 0;
  private readonly pollMs: number;

  constructor(private readonly o: { api: Api; db: Db; databaseUrl: string; log: Logger; pollMs?: number; gapMs?: number }) {
    this.pollMs = o.pollMs ?? 2_000;
    this.listener = sessionChangeWakeUp({
      databaseUrl: o.databaseUrl,
      onWake: () => this.kick(),
      onError: (err) => o.log.warn({ err: err.message }, 'progress listener unavailable; polling only'),
    });
  }

  async start(): Promise<void> {
    await this.listener.start();
    this.schedule(this.pollMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.listener.stop();
    await this.running;
  }

  /** Looks now (or right after the pass in progress). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass().finally(() => {
      this.running = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.kick();
      }
    });
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), Math.max(10, ms));
  }

  private async pass(): Promise<void> {
    const gap = this.o.gapMs ?? PROGRESS_EDIT_GAP_MS;
    let next = this.pollMs;
    try {
      const now = Date.now();
      if (now < this.pausedUntil) return this.schedule(this.pausedUntil - now);
      for (const c of await listCardsBehind(this.o.db)) {
        const wait = c.cardEditedAt ? c.cardEditedAt.getTime() + gap - Date.now() : 0;
        if (wait > 0) {
          next = Math.min(next, wait);
          continue;
        }
        try {
          await showCard({ api: this.o.api, db: this.o.db, chatId: c.chatId, sessionId: c.sessionId });
        } catch (error) {
          const f = classifySendError(error);
          if (f.kind === 'rate_limited') {
            this.pausedUntil = Date.now() + f.retryAfterMs;
            this.o.log.warn({ retryAfterMs: f.retryAfterMs }, 'Telegram rate limit on a progress edit; pausing progress');
            next = f.retryAfterMs;
            break;
          }
          this.o.log.warn({ chatId: String(c.chatId), reason: f.reason }, 'progress edit failed; the next change tries again');
          // Refused for good (the chat blocked the bot, say): this activity is given up, not retried each pass.
          if (f.kind === 'permanent') await noteCardShown(this.o.db, c.chatId, new Date(), c.activityAt);
        }
      }
    } catch (error) {
      this.o.log.warn({ err: error instanceof Error ? error.message.slice(0, 200) : 'unknown' }, 'progress pass failed; retrying');
    }
    this.schedule(next);
  }
}
