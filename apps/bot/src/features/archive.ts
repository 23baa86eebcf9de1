import { Composer, InlineKeyboard } from 'grammy';
import { listArchive, listArchived } from '@bria/core/services';
import type { BotContext } from '../context.ts';
import { cb } from '../card/callback-data.ts';
import { escapeHtml } from '../render/index.ts';
import { askForNode, selectedNode } from './home.ts';
import { resumeFromChat } from './resume.ts';
import { refuseButton, staleButton } from './stale.ts';
import { reply } from '../outbox/queue.ts';

const PAGE = 5;

/** `/archive`: the node's archived sessions (found on the computer too), newest first, with Resume. */
export function archive(): Composer<BotContext> {
  const c = new Composer<BotContext>();
  const show = async (ctx: BotContext, page: number) => {
    const { t, deps } = ctx.bria;
    const node = await selectedNode(ctx);
    if (!node) return askForNode(ctx);
    const { rows, more } = await listArchived(deps.db, { nodeId: node.id, page, pageSize: PAGE });
    if (rows.length === 0 && page === 0) return void (await reply(ctx, t('archive.none', { node: node.name })));
    const gen = ctx.bria.chat.cardGeneration;
    const lines = [`<b>${escapeHtml(t('archive.title', { node: node.name, page: page + 1 }))}</b>`];
    const kb = new InlineKeyboard();
    rows.forEach((s, i) => {
      const title = (s.title ?? s.firstPrompt ?? t('archive.untitled')).replace(/\s+/g, ' ').slice(0, 80);
      const when = (s.nativeLastActivity ?? s.archivedAt ?? s.createdAt).toISOString().slice(0, 16).replace('T', ' ');
      const gone = s.nativeGoneAt ? ` · ${t('archive.nativeGone')}` : '';
      // Begun by hand and still running at the computer: live, offered as "Continue here", never Resume.
      const desk = s.desk ? ` · ${t('archive.desk', { pid: s.desk.pid ?? '?' })}` : '';
      lines.push(`${i + 1}. <b>${escapeHtml(title)}</b>\n   ${escapeHtml(`${t(`executor.${s.executor}`)} · ${s.folder} · ${when}${gone}${desk}`)}`);
      kb.text(`${t(s.desk ? 'button.continueHere' : 'button.resume')} ${i + 1}`, cb.encode({ a: 'resume', gen, sessionId: s.id, arg: 'a' }));
    });
    if (more) kb.row().text(t('button.more'), cb.encode({ a: 'arch', gen, arg: String(page + 1) }));
    await reply(ctx, lines.join('\n'), { html: true, keyboard: kb });
  };
  /**
   * `/archive <words>`: the same search as the dashboard's, over every computer's closed sessions and
   * their stored prompts and finals; each hit with the matching lines, the words in bold, and Resume.
   */
  const search = async (ctx: BotContext, words: string) => {
    const { t, deps } = ctx.bria;
    const page = await listArchive({ db: deps.db }, { search: words, limit: PAGE + 1 });
    const shown = page.items.slice(0, PAGE);
    const quoted = words.replace(/\s+/g, ' ').slice(0, 60);
    if (shown.length === 0) return void (await reply(ctx, t('archive.searchNone', { words: quoted })));
    const gen = ctx.bria.chat.cardGeneration;
    const lines = [`<b>${escapeHtml(t('archive.searchTitle', { words: quoted }))}</b>`];
    const kb = new InlineKeyboard();
    shown.forEach((s, i) => {
      const title = (s.title ?? s.firstPrompt ?? t('archive.untitled')).replace(/\s+/g, ' ').slice(0, 80);
      const when = (s.lastActivityAt ?? s.archivedAt ?? s.createdAt).toISOString().slice(0, 16).replace('T', ' ');
      lines.push(`${i + 1}. <b>${escapeHtml(title)}</b>\n   ${escapeHtml(`${s.node.name} · ${t(`executor.${s.executor}`)} · ${s.folder} · ${when}`)}`);
      if (s.match) lines.push(`   <i>${markMatches(s.match.snippet)}</i>`);
      // A removed computer cannot run it again.
      if (!s.node.removed) kb.text(`${t('button.resume')} ${i + 1}`, cb.encode({ a: 'resume', gen, sessionId: s.id, arg: 'a' }));
    });
    if (page.items.length > PAGE) lines.push(escapeHtml(t('archive.searchMore', { n: PAGE })));
    await reply(ctx, lines.join('\n'), { html: true, keyboard: kb });
  };
  c.command('archive', (ctx) => {
    const words = typeof ctx.match === 'string' ? ctx.match.trim() : '';
    return words ? search(ctx, words) : show(ctx, 0);
  });
  c.callbackQuery(/^arch:/, async (ctx) => {
    const data = cb.decode(ctx.callbackQuery.data);
    if (!data) return refuseButton(ctx);
    if (await staleButton(ctx, data)) return;
    await ctx.answerCallbackQuery();
    await show(ctx, Number(data.arg ?? 0));
  });
  // Resume from the archive list (the /new flow's resume buttons carry the flow nonce and no `a` arg).
  c.callbackQuery(/^resume:.*:a$/, async (ctx) => {
    const data = cb.decode(ctx.callbackQuery.data);
    if (!data?.sessionId) return refuseButton(ctx);
    if (await staleButton(ctx, data)) return;
    await ctx.answerCallbackQuery();
    await resumeFromChat(ctx, data.sessionId);
  });
  // "Continue here" confirmed for the desk process the explanation named (`d<pid>`).
  c.callbackQuery(/^resume:.*:d\d+$/, async (ctx) => {
    const data = cb.decode(ctx.callbackQuery.data);
    if (!data?.sessionId || !data.arg) return refuseButton(ctx);
    if (await staleButton(ctx, data)) return;
    await ctx.answerCallbackQuery();
    await resumeFromChat(ctx, data.sessionId, { takeOverPid: Number(data.arg.slice(1)) });
  });
  // "Adopt in place" confirmed for the desk process the explanation named (`p<pid>`).
  c.callbackQuery(/^resume:.*:p\d+$/, async (ctx) => {
    const data = cb.decode(ctx.callbackQuery.data);
    if (!data?.sessionId || !data.arg) return refuseButton(ctx);
    if (await staleButton(ctx, data)) return;
    await ctx.answerCallbackQuery();
    await resumeFromChat(ctx, data.sessionId, { adoptPid: Number(data.arg.slice(1)) });
  });
  return c;
}

/** A search snippet as Telegram HTML: escaped, the matched words (between \u0002 and \u0003) in bold. */
export function markMatches(snippet: string): string {
  return snippet
    .replace(/\s+/g, ' ')
    .slice(0, 300)
    .split('\u0002')
    .map((part, i) => {
      if (i === 0) return escapeHtml(part.split('\u0003').join(''));
      const [hit = '', rest = ''] = part.split('\u0003');
      return `<b>${escapeHtml(hit)}</b>${escapeHtml(rest)}`;
    })
    .join('');
}
