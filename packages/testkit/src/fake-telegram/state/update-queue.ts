import type { Update } from '@grammyjs/types';
import { ApiError } from '../api-error.ts';

export type UpdateType = Exclude<keyof Update, 'update_id'>;
export type NewUpdate = Omit<Update, 'update_id'>;

// Without an explicit list the server leaves these three out.
const OPT_IN: ReadonlySet<string> = new Set(['chat_member', 'message_reaction', 'message_reaction_count']);

interface Waiter {
  wake: () => void;
  fail: (error: ApiError) => void;
}

export interface PollOptions {
  offset?: number;
  limit?: number;
  timeoutSeconds?: number;
  allowedUpdates?: string[];
  /** Resolves when the client went away, so its poll stops holding the queue. */
  gone: Promise<void>;
}

export const typeOf = (u: Update): string => Object.keys(u).find((k) => k !== 'update_id') ?? 'unknown';

/** The bot's pending updates and the one long-poll request the server holds at a time. */
export class UpdateQueue {
  private pending: Update[] = [];
  private nextId: number;
  private allowed: string[] = [];
  private waiter: Waiter | undefined;
  private closed = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  webhookUrl = '';

  constructor(firstUpdateId: number) {
    this.nextId = firstUpdateId;
  }

  push(update: NewUpdate): Update {
    const full = { update_id: this.nextId++, ...update } as Update;
    this.pending.push(full);
    this.waiter?.wake();
    return full;
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  get allowedUpdates(): string[] {
    return [...this.allowed];
  }

  drop(): void {
    this.pending = [];
  }

  async poll(opts: PollOptions): Promise<Update[]> {
    if (this.webhookUrl !== '') {
      throw new ApiError(409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");
    }
    // A newer request wins and the held one is answered with 409, exactly what two bot instances see.
    this.waiter?.fail(new ApiError(409, 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running'));
    if (opts.allowedUpdates) this.allowed = [...opts.allowedUpdates];
    this.confirm(opts.offset ?? 0);
    const limit = Math.min(Math.max(opts.limit ?? 100, 1), 100);
    const ready = this.deliverable(limit);
    const timeoutMs = Math.max(opts.timeoutSeconds ?? 0, 0) * 1000;
    if (ready.length > 0 || timeoutMs === 0 || this.closed) return ready;
    return new Promise<Update[]>((resolve, reject) => {
      const finish = (result: Update[] | ApiError): void => {
        if (this.waiter !== waiter) return;
        this.waiter = undefined;
        clearTimeout(timer);
        this.timers.delete(timer);
        if (result instanceof ApiError) reject(result);
        else resolve(result);
      };
      const waiter: Waiter = {
        wake: () => {
          const batch = this.deliverable(limit);
          if (batch.length > 0) finish(batch);
        },
        fail: finish,
      };
      const timer = setTimeout(() => finish([]), timeoutMs);
      this.timers.add(timer);
      this.waiter = waiter;
      void opts.gone.then(() => finish([]));
    });
  }

  /** Answers a held poll with [] so close() never leaves a request hanging. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.fail(new ApiError(502, 'Bad Gateway'));
  }

  private confirm(offset: number): void {
    if (offset > 0) this.pending = this.pending.filter((u) => u.update_id >= offset);
    else if (offset < 0) this.pending = this.pending.slice(offset);
  }

  private deliverable(limit: number): Update[] {
    const allowed = this.allowed;
    const wanted = (u: Update): boolean => {
      const type = typeOf(u);
      return allowed.length > 0 ? allowed.includes(type) : !OPT_IN.has(type);
    };
    // Updates the bot did not ask for are never delivered, so they leave the queue here.
    this.pending = this.pending.filter(wanted);
    return this.pending.slice(0, limit).map((u) => structuredClone(u));
  }
}
