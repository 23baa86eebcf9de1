import type { BotCommand, MenuButton } from '@grammyjs/types';
import { ApiError } from '../api-error.ts';
import type { Handler } from '../context.ts';
import { bool, int, json, str } from '../params.ts';

/** Commands are stored per (scope, language) like on the real server. */
export function commandScopeKey(scope: object | undefined, languageCode: string | undefined): string {
  const s = (scope ?? { type: 'default' }) as Record<string, unknown>;
  return JSON.stringify([s.type, s.chat_id ?? null, s.user_id ?? null, languageCode ?? '']);
}

const scopeKey = (p: Record<string, unknown>): string =>
  commandScopeKey(json<object>(p, 'scope', "can't parse BotCommandScope JSON object"), str(p, 'language_code'));

function validateCommands(commands: unknown): BotCommand[] {
  if (!Array.isArray(commands)) throw ApiError.badRequest('field "commands" must be of type Array');
  if (commands.length > 100) throw ApiError.badRequest('too many commands specified');
  for (const c of commands as Array<Partial<BotCommand>>) {
    if (typeof c?.command !== 'string' || !/^[a-z0-9_]{1,32}$/.test(c.command)) throw ApiError.badRequest('BOT_COMMAND_INVALID');
    if (typeof c.description !== 'string' || c.description.trim() === '' || [...c.description].length > 256) {
      throw ApiError.badRequest('BOT_COMMAND_DESCRIPTION_INVALID');
    }
  }
  return (commands as BotCommand[]).map((c) => ({ command: c.command, description: c.description }));
}

export const botMethods: Record<string, Handler> = {
  getMe: (_req, ctx) => ctx.me,

  getUpdates: ({ params, gone }, ctx) =>
    ctx.updates.poll({
      offset: int(params, 'offset'),
      limit: int(params, 'limit'),
      timeoutSeconds: int(params, 'timeout'),
      allowedUpdates: json<string[]>(params, 'allowed_updates', "can't parse allowed_updates JSON array"),
      gone,
    }),

  setWebhook: ({ params }, ctx) => {
    const url = str(params, 'url') ?? '';
    if (url !== '' && !/^https:\/\//i.test(url)) throw ApiError.badRequest('bad webhook: HTTPS url must be provided for webhook');
    if (bool(params, 'drop_pending_updates')) ctx.updates.drop();
    ctx.webhook.url = url;
    ctx.updates.webhookUrl = url;
    const maxConnections = int(params, 'max_connections');
    const allowed = json<string[]>(params, 'allowed_updates', "can't parse allowed_updates JSON array");
    const secret = str(params, 'secret_token');
    if (maxConnections !== undefined) ctx.webhook.maxConnections = maxConnections;
    if (allowed !== undefined) ctx.webhook.allowedUpdates = allowed;
    if (secret !== undefined) ctx.webhook.secretToken = secret;
    return true;
  },

  deleteWebhook: ({ params }, ctx) => {
    if (bool(params, 'drop_pending_updates')) ctx.updates.drop();
    ctx.webhook.url = '';
    ctx.updates.webhookUrl = '';
    return true;
  },

  getWebhookInfo: (_req, ctx) => {
    const info: Record<string, unknown> = {
      url: ctx.webhook.url,
      has_custom_certificate: false,
      pending_update_count: ctx.updates.pendingCount,
    };
    if (ctx.webhook.url !== '') {
      info.max_connections = ctx.webhook.maxConnections ?? 40;
      if (ctx.webhook.allowedUpdates) info.allowed_updates = ctx.webhook.allowedUpdates;
    }
    return info;
  },

  setMyCommands: ({ params }, ctx) => {
    const commands = validateCommands(json(params, 'commands', "can't parse commands JSON object"));
    ctx.commands.set(scopeKey(params), commands);
    return true;
  },

  getMyCommands: ({ params }, ctx) => ctx.commands.get(scopeKey(params)) ?? [],

  deleteMyCommands: ({ params }, ctx) => {
    ctx.commands.delete(scopeKey(params));
    return true;
  },

  setChatMenuButton: ({ params }, ctx) => {
    const button = json<MenuButton>(params, 'menu_button', "can't parse menu button JSON object") ?? { type: 'default' };
    if (!['default', 'commands', 'web_app'].includes(button.type)) throw ApiError.badRequest('unsupported menu button type');
    const chatId = int(params, 'chat_id');
    if (chatId !== undefined) ctx.chats.forBot(chatId);
    ctx.menuButtons.set(String(chatId ?? 'default'), button);
    return true;
  },

  getChatMenuButton: ({ params }, ctx) => {
    const chatId = int(params, 'chat_id');
    return ctx.menuButtons.get(String(chatId ?? 'default')) ?? ctx.menuButtons.get('default') ?? { type: 'default' };
  },
};
