import { Composer } from 'grammy';
import { isAppError } from '@bria/core/domain';
import { queueLength } from '@bria/core/services';
import type { BotContext } from '../context.ts';
import { activityLine } from '../card/activity-line.ts';
import { contextTokens, formatLeft, outputTokens } from '../card/card-view.ts';
import { escapeHtml } from '../render/index.ts';
import { activeSession, selectedNode, showHome } from './home.ts';
import { queueLoginLink, reply } from '../outbox/queue.ts';

const WORKING_STATES = new Set(['Running', 'Stopping', 'ClosingAfterWork']);

/** `/start`, `/status`, `/login`. */
export function basics(): Composer<BotContext> {
  const c = new Composer<BotContext>();
  c.command('start', async (ctx) => {
    await reply(ctx, escapeHtml(ctx.bria.t('intro')), { html: true });
    await showHome(ctx);
  });
  c.command('status', async (ctx) => {
    const { t, deps } = ctx.bria;
    const node = await selectedNode(ctx);
    const s = node ? await activeSession(ctx, node.id) : null;
    if (!node || !s) return void (await reply(ctx, t('status.none')));
    const tokens = contextTokens(s.executor, s.usage);
    const out = outputTokens(s.usage);
    const lines = [
      t('card.title', { executor: t(`executor.${s.executor}`), node: node.name }),
      t('status.nativeId', { id: s.nativeSessionId ?? '—' }),
      t('card.state', { state: t(`state.${s.state}`) }),
      formatLeft(t, s.lifetimeDeadline, deps.now?.() ?? new Date()),
      ...(s.context
        ? [
            s.context.percent !== null && s.context.windowTokens !== null
              ? t('card.context', { percent: s.context.percent, window: s.context.windowTokens.toLocaleString('en-US'), compactions: s.context.compactions })
              : t('card.contextNoWindow', { tokens: s.context.usedTokens.toLocaleString('en-US'), compactions: s.context.compactions }),
          ]
        : tokens !== undefined
          ? [t('card.usage', { tokens: tokens.toLocaleString('en-US') })]
          : []),
      ...(out !== undefined ? [t('status.output', { tokens: out.toLocaleString('en-US') })] : []),
      t('status.queue', { count: await queueLength(deps.db, s.id) }),
      // Back to the desk: the one command that continues this very CLI at the computer.
      ...(s.attachCommand ? [t('status.attach', { command: s.attachCommand })] : []),
      ...(s.desk ? [t('status.desk', { node: node.name, pid: s.desk.pid ?? '?' })] : []),
    ];
    // While a turn runs: what the CLI does now, from its journal (the card's activity line).
    const now = deps.now?.() ?? new Date();
    const doing = WORKING_STATES.has(s.state) && s.activity ? `\n${activityLine(t, s.activity, now)}` : '';
    await reply(ctx, `<pre>${escapeHtml(lines.join('\n'))}</pre>${doing}`, { html: true });
  });
  // The CLI's own /compact for the active session: typed by the agent as the command, only while idle.
  c.command('compact', async (ctx) => {
    const { t, deps } = ctx.bria;
    const node = await selectedNode(ctx);
    const s = node ? await activeSession(ctx, node.id) : null;
    if (!node || !s) return void (await reply(ctx, t('status.none')));
    try {
      await deps.actions.compactSession({ sessionId: s.id });
      await reply(ctx, t('compact.asked'));
    } catch (error) {
      if (!isAppError(error)) throw error;
      const key =
        error.code === 'CONFLICT'
          ? 'compact.busy'
          : error.code === 'NOT_IMPLEMENTED'
            ? 'compact.agentTooOld'
            : error.code === 'NODE_OFFLINE'
              ? 'compact.offline'
              : null;
      if (!key) throw error;
      await reply(ctx, t(key));
    }
  });
  c.command('login', async (ctx) => {
    const { deps } = ctx.bria;
    const from = ctx.from;
    if (!from) return;
    const link = await deps.actions.createLoginLink({ telegramUserId: BigInt(from.id), name: from.first_name });
    // The link is a secret: it goes to this private chat only, is never logged, and its outbox row
    // keeps it only until the row is finished.
    await queueLoginLink(ctx, link);
  });
  return c;
}
