import type { Context } from 'grammy';
import type { Language, Translator } from '@bria/core/i18n';
import type { ChatDto } from '@bria/core/services';
import type { BotDeps } from './deps.ts';

/** Per-update state the middleware chain fills in before any feature runs. */
export interface BriaState {
  deps: BotDeps;
  chat: ChatDto;
  chatId: bigint;
  lang: Language;
  t: Translator;
}

export type BotContext = Context & { bria: BriaState };
