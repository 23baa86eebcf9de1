import { Composer, InlineKeyboard } from 'grammy';
import { listNodeViews, type NodeView, updateChat } from '@bria/core/services';
import type { BotContext } from '../context.ts';
import { cb } from '../card/callback-data.ts';
import { escapeHtml } from '../render/index.ts';
import { showHome } from './home.ts';
import { refuseButton } from './stale.ts';
import { reply } from '../outbox/queue.ts';

export function nodesKeyboard(ctx: BotContext, nodes: NodeView[]): InlineKeyboard {
  const kb = new InlineKeyboard();
  for (const n of nodes) kb.text(`${n.online ? '🟢' : '⚪'} ${n.name}`, cb.encode({ a: 'node', gen: ctx.bria.chat.cardGeneration, arg: n.id })).row();
  return kb;
}

/** `/nodes`: every computer with its status and open sessions; choosing one restores its last active session. */
export function nodes(): Composer<BotContext> {
  const c = new Composer<BotContext>();
  c.command('nodes', async (ctx) => {
    const { t } = ctx.bria;
    const list = await listNodeViews(ctx.bria.deps.db);
    if (list.length === 0) return void (await reply(ctx, t('nodes.none')));
    const lines = list.map((n) => t('nodes.line', { name: n.name, status: t(n.online ? 'nodes.online' : 'nodes.offline'), open: n.openSessions }));
    await reply(ctx, escapeHtml([t('nodes.title'), ...lines].join('\n')), { html: true, keyboard: nodesKeyboard(ctx, list) });
  });
  c.callbackQuery(/^node:/, async (ctx) => {
    const data = cb.decode(ctx.callbackQuery.data);
    // Choosing a computer is navigation (like Open): it acts on nothing, so a list drawn before the
    // current card still works; a node that does not exist (any more) is refused.
    if (!data?.arg) return refuseButton(ctx);
    const node = (await listNodeViews(ctx.bria.deps.db)).find((n) => n.id === data.arg);
    if (!node) return void (await refuseButton(ctx));
    await updateChat(ctx.bria.deps.db, ctx.bria.chatId, { selectedNodeId: node.id });
    ctx.bria.chat.selectedNodeId = node.id;
    await ctx.answerCallbackQuery({ text: ctx.bria.t('nodes.selected', { name: node.name }) });
    await showHome(ctx);
  });
  return c;
}
