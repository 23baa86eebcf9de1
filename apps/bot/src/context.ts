import type { Context } from 'grammy';
import type { Language, Translator } from '@bria/core/i18n';
import type { BotDeps } from './deps.ts';
import type { ChatDto } from './store/chats.ts';

/** Per-update state the middleware chain fills in before any feature runs. */
export interface BriaState {
  deps: BotDeps;
  chat: ChatDto;
  chatId: bigint;
  lang: Language;
  t: Translator;
}

export type BotContext = Context & { bria: BriaState };
