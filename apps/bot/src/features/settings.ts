import { Composer, InlineKeyboard } from 'grammy';
import { LANGUAGES, translate, translator } from '@bria/core/i18n';
import { PERMISSION_MODES } from '@bria/core/protocol';
import { modeUnavailable, nodeDefaultMode, readSettingsView, updateChat } from '@bria/core/services';
import type { BotContext } from '../context.ts';
import type { Executor } from '../deps.ts';
import { cb } from '../card/callback-data.ts';
import { escapeHtml } from '../render/index.ts';
import { selectedNode } from './home.ts';
import { refuseButton, staleButton } from './stale.ts';
import { edit, reply } from '../outbox/queue.ts';

const LIFETIMES: (number | null)[] = [null, 6, 12, 24, 48];
const EXECUTORS: Executor[] = ['claude', 'codex'];

/** `/settings`: lifetime, resume suggestions, executors of the selected node, language. */
export function settings(): Composer<BotContext> {
  const c = new Composer<BotContext>();
  const render = async (ctx: BotContext) => {
    const { t, deps } = ctx.bria;
    const s = await readSettingsView(deps.db);
    const node = await selectedNode(ctx);
    const gen = ctx.bria.chat.cardGeneration;
    const hours = (h: number | null) => (h === null ? t('settings.lifetimeNever') : t('settings.hours', { hours: h }));
    const lines = [
      `<b>${escapeHtml(t('settings.title'))}</b>`,
      escapeHtml(t('settings.lifetime', { value: hours(s.lifetimeHours) })),
      escapeHtml(t('settings.resumeRecs', { value: t(s.resumeRecommendations ? 'settings.on' : 'settings.off') })),
      ...(node
        ? [escapeHtml(t('settings.executors', { node: node.name, value: node.enabledExecutors.map((e) => t(`executor.${e}`)).join(', ') || '—' }))]
        : []),
      ...(node
        ? node.enabledExecutors.map((e) => escapeHtml(t('choice.settingsDefault', { executor: t(`executor.${e}`), mode: nodeDefaultMode(e, node) })))
        : []),
      escapeHtml(t('settings.language', { value: t('lang.name') })),
    ];
    const kb = new InlineKeyboard();
    for (const h of LIFETIMES) kb.text(`${h === s.lifetimeHours ? '• ' : ''}${hours(h)}`, cb.encode({ a: 'set', gen, arg: `life=${h ?? 'never'}` }));
    kb.row().text(
      t('settings.resumeRecs', { value: t(s.resumeRecommendations ? 'settings.off' : 'settings.on') }),
      cb.encode({ a: 'set', gen, arg: `recs=${s.resumeRecommendations ? 0 : 1}` }),
    );
    if (node) {
      kb.row();
      for (const e of EXECUTORS)
        kb.text(`${node.enabledExecutors.includes(e) ? '☑' : '☐'} ${t(`executor.${e}`)}`, cb.encode({ a: 'set', gen, arg: `exec=${e}` }));
      // One button per executor steps its default to the next mode the node can start.
      kb.row();
      for (const e of node.enabledExecutors) kb.text(`${t(`executor.${e}`)}: ${nodeDefaultMode(e, node)} ↻`, cb.encode({ a: 'set', gen, arg: `pm=${e}` }));
    }
    kb.row();
    for (const l of LANGUAGES) kb.text(translate(l, 'lang.name'), cb.encode({ a: 'set', gen, arg: `lang=${l}` }));
    return { html: lines.join('\n'), kb };
  };
  c.command('settings', async (ctx) => {
    const v = await render(ctx);
    await reply(ctx, v.html, { html: true, keyboard: v.kb });
  });
  c.callbackQuery(/^set:/, async (ctx) => {
    const data = cb.decode(ctx.callbackQuery.data);
    if (!data?.arg) return refuseButton(ctx);
    if (await staleButton(ctx, data)) return;
    const { deps } = ctx.bria;
    const [key, value] = data.arg.split('=') as [string, string];
    // Only values this keyboard offers are acted on; anything else was not drawn by Bria.
    const offered =
      (key === 'life' && LIFETIMES.some((h) => String(h ?? 'never') === value)) ||
      (key === 'recs' && (value === '0' || value === '1')) ||
      ((key === 'exec' || key === 'pm') && (EXECUTORS as string[]).includes(value)) ||
      (key === 'lang' && (LANGUAGES as readonly string[]).includes(value));
    if (!offered) return void (await refuseButton(ctx));
    if (key === 'life') await deps.actions.updateSettings({ lifetimeHours: value === 'never' ? null : Number(value) });
    if (key === 'recs') await deps.actions.updateSettings({ resumeRecommendations: value === '1' });
    if (key === 'exec') {
      const node = await selectedNode(ctx);
      if (node) {
        const e = value as Executor;
        const next = node.enabledExecutors.includes(e) ? node.enabledExecutors.filter((x) => x !== e) : [...node.enabledExecutors, e];
        await deps.actions.setExecutors({ nodeId: node.id, executors: next });
      }
    }
    if (key === 'pm') {
      const node = await selectedNode(ctx);
      const e = value as Executor;
      if (node) {
        // Read as plain strings: the two executors' mode lists are different tuples.
        const modes: readonly string[] = PERMISSION_MODES[e].filter((m) => !modeUnavailable(node, e, m));
        const next = modes[(modes.indexOf(nodeDefaultMode(e, node)) + 1) % modes.length];
        if (next) await deps.actions.setPermissionMode({ nodeId: node.id, executor: e, mode: next });
      }
    }
    if (key === 'lang' && (LANGUAGES as readonly string[]).includes(value)) {
      await updateChat(deps.db, ctx.bria.chatId, { language: value });
      ctx.bria.chat.language = value;
      ctx.bria.lang = value as (typeof LANGUAGES)[number];
      ctx.bria.t = translator(ctx.bria.lang);
    }
    await ctx.answerCallbackQuery({ text: ctx.bria.t('settings.saved') });
    const v = await render(ctx);
    const shown = ctx.callbackQuery.message?.message_id;
    if (shown !== undefined) await edit(ctx, shown, v.html, { html: true, keyboard: v.kb });
  });
  return c;
}
