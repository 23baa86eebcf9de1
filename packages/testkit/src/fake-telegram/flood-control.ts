import { ApiError } from './api-error.ts';

export interface FloodLimit {
  /** Calls allowed per chat within the window. */
  count: number;
  windowMs: number;
}

// Methods that put or change something in a chat, which is what Telegram rate-limits per chat.
const LIMITED = new Set(['sendmessage', 'senddocument', 'sendphoto', 'editmessagetext', 'editmessagecaption', 'editmessagereplymarkup']);

/**
 * Opt-in per-chat flood control: past the limit a call gets the real 429 with retry_after until
 * the window frees up. Off unless a limit is set, so ordinary tests never see it.
 */
export class FloodControl {
  limit: FloodLimit | undefined;
  private readonly history = new Map<number, number[]>();

  constructor(limit?: FloodLimit) {
    this.limit = limit;
  }

  check(method: string, chatId: unknown, now: number): void {
    const limit = this.limit;
    const id = Number(chatId);
    if (!limit || !LIMITED.has(method.toLowerCase()) || !Number.isFinite(id)) return;
    const recent = (this.history.get(id) ?? []).filter((t) => t > now - limit.windowMs);
    if (recent.length >= limit.count) {
      const retryAfter = Math.max(1, Math.ceil(((recent[0] as number) + limit.windowMs - now) / 1000));
      this.history.set(id, recent);
      throw new ApiError(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });
    }
    recent.push(now);
    this.history.set(id, recent);
  }
}
