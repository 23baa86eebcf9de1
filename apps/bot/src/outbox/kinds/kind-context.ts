import type { Api, InlineKeyboard } from 'grammy';
import type { Translator } from '@bria/core/i18n';
import type { ChatDto, ClaimedRow, Db, DeliveryPayload } from '@bria/core/services';

/*
 * The payloads of the `telegram` outbox are core's one schema (`zDeliveryPayload`): the engine's
 * kinds and the bot's own (`resume_status`, `reply`, `edit`, `card`, `notice`, `login_link`).
 */
export interface DeliverContext {
  api: Api;
  db: Db;
  /** Called after each delivered part; the row's progress is durable when it resolves. */
  onPart: (messageIds: number[]) => Promise<void>;
}

/** What every kind's handler gets: the row's chat, its language, the parts already sent, and two helpers. */
export interface KindContext extends DeliverContext {
  row: ClaimedRow;
  chatKey: bigint;
  chatId: number;
  chat: ChatDto | null;
  t: Translator;
  already: number[];
  /** One new HTML message (with buttons); its id. */
  send: (html: string, keyboard?: InlineKeyboard) => Promise<number[]>;
  /** Redraws the session's card when it is the card the chat shows (other sessions' cards are stale already). */
  refreshCard: (sessionId: string) => Promise<number[]>;
}

export type PayloadOf = { [P in DeliveryPayload as P['kind']]: P };
export type Kind = keyof PayloadOf;
/** One kind's delivery: the Telegram message ids it produced (all parts). Throws Bot API errors. */
export type KindHandler<K extends Kind> = (p: PayloadOf[K], c: KindContext) => Promise<number[]>;
export type KindHandlers = { [K in Kind]: KindHandler<K> };
