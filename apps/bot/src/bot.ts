import { Bot, type BotConfig as GrammyConfig } from 'grammy';
import { isAppError } from '@bria/core/domain';
import type { BotContext } from './context.ts';
import type { BotDeps } from './deps.ts';
import { access } from './features/access.ts';
import { archive } from './features/archive.ts';
import { basics } from './features/basics.ts';
import { cardActions } from './features/card-actions.ts';
import { changes } from './features/changes.ts';
import { messages } from './features/messages.ts';
import { newSession } from './features/new-session.ts';
import { nodes } from './features/nodes.ts';
import { prompts } from './features/prompts.ts';
import { queueControl } from './features/queue-control.ts';
import { schedules } from './features/schedules.ts';
import { settings } from './features/settings.ts';
import { unsupportedMessages } from './features/unsupported.ts';
import { voice } from './features/voice.ts';
import { plainTextFallback } from './render/plain-fallback.ts';
import { answerEveryCallback, refuseButton } from './features/stale.ts';
import { replyWith } from './outbox/queue.ts';

export const COMMANDS = ['start', 'new', 'sessions', 'nodes', 'archive', 'status', 'compact', 'settings', 'schedule', 'now', 'changes', 'login'] as const;

/** The Telegram front end: features as composers behind the allow-list, one error boundary. */
export function createBot(token: string, deps: BotDeps, config?: GrammyConfig<BotContext>): Bot<BotContext> {
  const bot = new Bot<BotContext>(token, config);
  // Copied to every update's ctx.api: a reply with markup Telegram cannot parse is sent as plain text.
  bot.api.config.use(
    plainTextFallback((method, description) =>
      deps.log.warn({ method, description: description.slice(0, 200) }, 'Telegram refused the markup; sent as plain text'),
    ),
  );
  // First of all: during a stop, an update fetched but not begun is neither handled nor confirmed.
  bot.use((_ctx, next) => (deps.accepting === undefined || deps.accepting() ? next() : undefined));
  bot.use(access(deps));
  bot.use(answerEveryCallback);
  bot.use(
    basics(),
    nodes(),
    newSession(),
    cardActions(),
    changes(),
    archive(),
    settings(),
    schedules(),
    prompts(),
    queueControl(),
    voice(),
    messages(),
    unsupportedMessages(),
  );
  // Data no feature recognises (an old build's button, or tampered): out of date, and the card refreshed.
  bot.callbackQuery(/.*/, refuseButton);

  bot.catch(async (err) => {
    const ctx = err.ctx;
    const e = err.error;
    const code = isAppError(e) ? e.code : undefined;
    deps.log.error(
      { updateId: ctx.update.update_id, code, err: e instanceof Error ? e.name : 'unknown', msg: e instanceof Error ? e.message.slice(0, 200) : undefined },
      'update failed',
    );
    if (!ctx.bria) return;
    const { t } = ctx.bria;
    const text =
      code === 'STALE_BUTTON' || code === 'STALE_GENERATION' ? t('button.stale') : code === 'NOT_IMPLEMENTED' ? t('error.engineMissing') : t('error.generic');
    try {
      // The apology to a press is the ephemeral answer; to a message, a reply through the outbox.
      if (ctx.callbackQuery) await ctx.answerCallbackQuery({ text }).catch(() => replyWith(ctx, deps, text, 'error'));
      else await replyWith(ctx, deps, text, 'error');
    } catch {
      // The error boundary never throws: a failed apology is only logged above.
    }
  });
  return bot;
}
