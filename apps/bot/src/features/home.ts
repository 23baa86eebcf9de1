import { InlineKeyboard } from 'grammy';
import { activeSessionView, listNodeViews, listOpenSessionViews, type NodeView, rememberedSessionView, updateChat } from '@bria/core/services';
import type { BotContext } from '../context.ts';
import { cb } from '../card/callback-data.ts';
import { escapeHtml } from '../render/index.ts';
import { fitFolderLabel } from '../render/session-name.ts';
import { nodesKeyboard } from './nodes.ts';
import { queueCard, reply } from '../outbox/queue.ts';

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

/**
 * No node is selected: with none enrolled the user is told how to add one; with several, they are
 * asked which (a command about "this computer" cannot guess between them).
 */
export async function askForNode(ctx: BotContext): Promise<void> {
  const { t } = ctx.bria;
  const nodes = await listNodeViews(ctx.bria.deps.db);
  if (nodes.length === 0) return void (await reply(ctx, escapeHtml(t('firstSteps.noNodes')), { html: true }));
  await reply(ctx, escapeHtml(t('nodes.title')), { html: true, keyboard: nodesKeyboard(ctx, nodes) });
}

/** The selected node's active session (if still open). */
export const activeSession = (ctx: BotContext, nodeId: string) => activeSessionView(ctx.bria.deps.db, { chatId: ctx.bria.chatId, nodeId });

/** The node's remembered active session in whatever state it is now (closed ones included). */
export const rememberedSession = (ctx: BotContext, nodeId: string) => rememberedSessionView(ctx.bria.deps.db, { chatId: ctx.bria.chatId, nodeId });

/** `/sessions`: the selected node's open sessions only, each an Open button. */
export async function sessionsList(ctx: BotContext): Promise<void> {
  const { t, deps } = ctx.bria;
  const node = await selectedNode(ctx);
  if (!node) return askForNode(ctx);
  const open = await listOpenSessionViews(deps.db, node.id);
  if (open.length === 0) return void (await reply(ctx, t('sessions.none', { node: node.name })));
  const kb = new InlineKeyboard();
  for (const s of open) {
    const label = fitFolderLabel(
      (folder) => t('sessions.line', { executor: t(`executor.${s.executor}`), state: t(`state.${s.state}`), folder }),
      s.folder.split('/').slice(-2).join('/'),
    );
    kb.text(label, cb.encode({ a: 'open', gen: ctx.bria.chat.cardGeneration, sessionId: s.id })).row();
  }
  await reply(ctx, escapeHtml(t('sessions.title', { node: node.name })), { html: true, keyboard: kb });
}

/**
 * Shows the card of the selected node's active session; without one, that node's open sessions to
 * pick from, or what to do first.
 */
export async function showHome(ctx: BotContext, o: { fresh?: boolean } = {}): Promise<void> {
  const { t } = ctx.bria;
  const node = await selectedNode(ctx);
  if (!node) return askForNode(ctx);
  const s = await activeSession(ctx, node.id);
  if (!s) {
    if (node.openSessions > 0) return sessionsList(ctx);
    await reply(ctx, escapeHtml(t('firstSteps.noSession', { node: node.name })), { html: true });
    return;
  }
  await queueCard(ctx, { sessionId: s.id, fresh: o.fresh ?? true });
}
