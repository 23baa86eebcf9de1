import { Composer, InlineKeyboard } from 'grammy';
import { isAppError } from '@bria/core/domain';
import type { MessageKey } from '@bria/core/i18n';
import { cancelSchedule, createSchedule, getPushSettings, listSchedules, type ScheduleDto } from '@bria/core/services';
import type { BotContext } from '../context.ts';
import { cb } from '../card/callback-data.ts';
import { reply } from '../outbox/queue.ts';
import { activeSession, selectedNode } from './home.ts';
import { parseSchedule } from './schedule-parse.ts';
import { refuseButton, staleButton } from './stale.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const snippet = (s: string) => (s.length > 80 ? `${s.slice(0, 79)}…` : s).replace(/\s+/g, ' ');

/** The user's zone: the one the dashboard's Settings keep (quiet hours), UTC until then. */
async function zoneOf(ctx: BotContext): Promise<string> {
  return (await getPushSettings({ db: ctx.bria.deps.db })).timeZone || 'UTC';
}

/**
 * `/schedule` (issue 33): with no text, the active session's scheduled messages with a Cancel
 * button each and how to add one; with text, a new one (schedule-parse.ts). Occurrences go through
 * the queue like any message (engine/schedules.ts).
 */
export function schedules(): Composer<BotContext> {
  const c = new Composer<BotContext>();
  const when = (ctx: BotContext, d: Date | string | null, tz: string) =>
    d ? new Intl.DateTimeFormat(ctx.bria.lang, { timeZone: tz, dateStyle: 'medium', timeStyle: 'short' }).format(new Date(d)) : '—';

  const list = async (ctx: BotContext, sessionId: string, tz: string) => {
    const { t, deps } = ctx.bria;
    const all = (await listSchedules({ db: deps.db }, sessionId)).filter((s) => s.status === 'active');
    if (all.length === 0) return void (await reply(ctx, `${t('sched.none')}\n\n${t('sched.usage', { zone: tz })}`));
    const kb = new InlineKeyboard();
    const lines = all.map((s: ScheduleDto, i) => {
      kb.text(t('sched.cancelBtn', { n: i + 1 }), cb.encode({ a: 'sch', gen: ctx.bria.chat.cardGeneration, arg: s.id }));
      if (i % 3 === 2) kb.row();
      const head =
        s.kind === 'recurring'
          ? t('sched.itemEvery', { cron: s.cron ?? '', when: when(ctx, s.nextRunAt, s.timeZone), text: snippet(s.text) })
          : t('sched.itemOnce', { when: when(ctx, s.nextRunAt, s.timeZone), text: snippet(s.text) });
      return `${i + 1}. ${head.replace(/^• /, '')}${s.lastResult ? `\n${t('sched.last', { result: s.lastResult })}` : ''}`;
    });
    await reply(ctx, [t('sched.list'), ...lines].join('\n'), { keyboard: kb });
  };

  c.command('schedule', async (ctx) => {
    const { t, deps } = ctx.bria;
    const node = await selectedNode(ctx);
    const session = node ? await activeSession(ctx, node.id) : null;
    if (!session) return void (await reply(ctx, t('sched.noSession')));
    const tz = await zoneOf(ctx);
    const args = typeof ctx.match === 'string' ? ctx.match : '';
    if (!args.trim()) return list(ctx, session.id, tz);
    const p = parseSchedule(args, new Date(), tz);
    if (!p.ok) {
      const key: MessageKey = p.error === 'no_text' ? 'sched.noText' : p.error === 'bad_time' ? 'sched.badTime' : 'sched.usage';
      return void (await reply(ctx, t(key, { zone: tz })));
    }
    try {
      const s = await createSchedule(
        { db: deps.db },
        p.kind === 'once'
          ? { sessionId: session.id, text: p.text, timeZone: tz, from: 'telegram', resumeIfClosed: p.resumeIfClosed, kind: 'once', runAt: p.runAt }
          : { sessionId: session.id, text: p.text, timeZone: tz, from: 'telegram', resumeIfClosed: p.resumeIfClosed, kind: 'recurring', cron: p.cron },
      );
      const first = when(ctx, s.nextRunAt, tz);
      await reply(
        ctx,
        s.kind === 'recurring' ? t('sched.createdEvery', { cron: s.cron ?? '', zone: tz, when: first }) : t('sched.created', { when: first, zone: tz }),
      );
    } catch (err) {
      if (!isAppError(err)) throw err;
      const key = err.userMessage;
      await reply(ctx, key && /^(schedules|msg)\.[a-zA-Z_]+$/.test(key) ? t(key as MessageKey) : t('msg.refusedGeneric'));
    }
  });

  // `/now <text>`: interrupt the running turn the CLI's way and deliver the text next (issue 33).
  c.command('now', async (ctx) => {
    const { t, deps, chatId } = ctx.bria;
    const node = await selectedNode(ctx);
    const session = node ? await activeSession(ctx, node.id) : null;
    if (!session) return void (await reply(ctx, t('msg.noActive')));
    const text = typeof ctx.match === 'string' ? ctx.match.trim() : '';
    if (!text) return void (await reply(ctx, t('now.usage')));
    try {
      const r = await deps.actions.acceptMessage({
        sessionId: session.id,
        chatId,
        source: 'telegram',
        sourceKey: `tg:${chatId}:${ctx.msg?.message_id}`,
        text,
        now: true,
      });
      if (r.interrupted) await reply(ctx, t('now.interrupted'));
    } catch (err) {
      if (!isAppError(err)) throw err;
      if (err.code === 'LIFETIME_EXPIRED') return void deps.wakeOutbox?.();
      return void (await reply(ctx, t('msg.refusedGeneric')));
    }
    await ctx.react('👀').catch(() => undefined);
  });

  c.callbackQuery(/^sch:/, async (ctx) => {
    const data = cb.decode(ctx.callbackQuery.data);
    if (!data?.arg || !UUID.test(data.arg)) return refuseButton(ctx);
    if (await staleButton(ctx, data)) return;
    const { t, deps } = ctx.bria;
    try {
      await cancelSchedule({ db: deps.db }, { scheduleId: data.arg });
      await ctx.answerCallbackQuery({ text: t('sched.cancelled') });
      await reply(ctx, t('sched.cancelled'));
    } catch (err) {
      if (!isAppError(err)) throw err;
      await ctx.answerCallbackQuery({ text: t(err.userMessage === 'schedules.not_active' ? 'schedules.not_active' : 'schedules.not_found') });
    }
  });
  return c;
}
