import type { BotContext } from '../context.ts';
import { showCard } from '../card/card-service.ts';
import { getActiveSession, getChat, updateChat } from '../store/chats.ts';
import { escapeHtml } from '../render/index.ts';
import { nodesKeyboard } from './nodes.ts';
import { getSessionView, listNodeViews, type NodeView } from '../store/sessions-read.ts';

/** The chat's selected node; with exactly one node, that one is selected without asking. */
export async function selectedNode(ctx: BotContext): Promise<NodeView | undefined> {
  const { db } = ctx.bria.deps;
  const nodes = await listNodeViews(db);
  const chosen = nodes.find((n) => n.id === ctx.bria.chat.selectedNodeId);
  if (chosen) return chosen;
  if (nodes.length !== 1) return undefined;
  const only = nodes[0] as NodeView;
  await updateChat(db, ctx.bria.chatId, { selectedNodeId: only.id });
  ctx.bria.chat.selectedNodeId = only.id;
  return only;
}

const OPEN = new Set(['Starting', 'Resuming', 'Ready', 'Running', 'Stopping', 'ClosingAfterWork', 'AwaitingRecovery', 'Closing']);

/** The selected node's active session (if still open). */
export async function activeSession(ctx: BotContext, nodeId: string) {
  const id = await getActiveSession(ctx.bria.deps.db, ctx.bria.chatId, nodeId);
  const s = id ? await getSessionView(ctx.bria.deps.db, id) : null;
  return s && OPEN.has(s.state) ? s : null;
}

/** Shows the card of the selected node's active session, or what to do first. */
export async function showHome(ctx: BotContext, o: { fresh?: boolean } = {}): Promise<void> {
  const { t } = ctx.bria;
  const node = await selectedNode(ctx);
  if (!node) {
    const nodes = await listNodeViews(ctx.bria.deps.db);
    if (nodes.length === 0) await ctx.reply(escapeHtml(t('firstSteps.noNodes')), { parse_mode: 'HTML' });
    else await ctx.reply(escapeHtml(t('nodes.title')), { parse_mode: 'HTML', reply_markup: nodesKeyboard(ctx, nodes) });
    return;
  }
  const s = await activeSession(ctx, node.id);
  if (!s) {
    await ctx.reply(escapeHtml(t('firstSteps.noSession', { node: node.name })), { parse_mode: 'HTML' });
    return;
  }
  await showCard({ api: ctx.api, db: ctx.bria.deps.db, chatId: ctx.bria.chatId, sessionId: s.id, fresh: o.fresh ?? true });
  const chat = await getChat(ctx.bria.deps.db, ctx.bria.chatId);
  if (chat) ctx.bria.chat = chat;
}
