import { randomBytes } from 'node:crypto';
import type { CallbackQuery } from '@grammyjs/types';
import { ApiError } from '../api-error.ts';

export interface CallbackAnswer {
  callbackQueryId: string;
  text?: string;
  showAlert: boolean;
  url?: string;
  cacheTime?: number;
  at: number;
}

interface Pending {
  query: CallbackQuery;
  createdAt: number;
  answered: boolean;
}

const TOO_OLD = 'query is too old and response timeout expired or query ID is invalid';

/** Callback queries the simulated user produced and the bot's answers to them. */
export class CallbackStore {
  private readonly queries = new Map<string, Pending>();
  private readonly answers: CallbackAnswer[] = [];

  constructor(private readonly ttlMs: number) {}

  /** Ids look like the real ones: a long decimal number as a string. */
  newId(): string {
    return BigInt(`0x${randomBytes(8).toString('hex')}`)
      .toString()
      .slice(0, 19);
  }

  add(query: CallbackQuery, now: number): void {
    this.queries.set(query.id, { query, createdAt: now, answered: false });
  }

  /** One answer per query, within its lifetime; anything else is the server's single 400. */
  answer(answer: CallbackAnswer): void {
    const pending = this.queries.get(answer.callbackQueryId);
    if (!pending || pending.answered || answer.at - pending.createdAt > this.ttlMs) throw ApiError.badRequest(TOO_OLD);
    if (answer.text !== undefined && [...answer.text].length > 200) throw ApiError.badRequest('MESSAGE_TOO_LONG');
    pending.answered = true;
    this.answers.push(answer);
  }

  list(): CallbackAnswer[] {
    return this.answers.map((a) => ({ ...a }));
  }
}
