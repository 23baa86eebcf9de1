import { InlineKeyboard } from 'grammy';
import type { Translator } from '@bria/core/i18n';
import { permissionModeOf } from '@bria/core/protocol';
import type { SessionView } from '@bria/core/services';
import { escapeHtml } from '../render/index.ts';
import { activityLine } from './activity-line.ts';
import { cb } from './callback-data.ts';

const WORKING = new Set(['Running', 'Stopping', 'ClosingAfterWork']);
// The session table takes close_requested in Ready only (SPEC §3: Close when no work runs); a card in
// Starting or AwaitingRecovery offers no lifecycle button (no manual "Recover" either).
const CLOSABLE = new Set(['Ready']);

export function formatLeft(t: Translator, deadline: Date | null, now: Date): string {
  if (!deadline) return t('card.lifetimeNever');
  const ms = deadline.getTime() - now.getTime();
  if (ms <= 0) return t('card.lifetime', { left: t('time.expired') });
  const totalMin = Math.floor(ms / 60_000);
  const h = Math.floor(totalMin / 60);
  const m = totalMin % 60;
  return t('card.lifetime', { left: h > 0 ? t('time.hm', { h, m }) : t('time.m', { m }) });
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * The context the last request used, from the agent's `usage` report. This version's report has the
 * kinds apart (`inputTokens` without cache, `cacheReadTokens`, `cacheWriteTokens`): all count. An
 * older agent's ({ inputTokens, cachedInputTokens }): Claude's cache reads were apart from its input,
 * Codex's input already included its cached part.
 */
export function contextTokens(executor: string, usage: unknown): number | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const u = usage as Record<string, unknown>;
  const explicit = num(u.contextTokens) ?? num(u.totalTokens);
  if (explicit !== undefined) return explicit;
  const input = num(u.inputTokens);
  if (input === undefined) return undefined;
  // This agent version sends the kinds apart (input without cache, cache reads, cache writes): all three were the prompt.
  if (u.cacheReadTokens !== undefined || u.cacheWriteTokens !== undefined) return input + (num(u.cacheReadTokens) ?? 0) + (num(u.cacheWriteTokens) ?? 0);
  return executor === 'claude' ? input + (num(u.cachedInputTokens) ?? 0) : input;
}

/** Output tokens of the last request, when reported. */
export const outputTokens = (usage: unknown): number | undefined =>
  usage && typeof usage === 'object' ? num((usage as Record<string, unknown>).outputTokens) : undefined;

/** The card: one message per chat, edited in place, with the lifecycle button of SPEC §3. */
export function renderCard(o: { t: Translator; session: SessionView; nodeName: string; generation: number; now: Date; confirmClose?: boolean }): {
  html: string;
  keyboard: InlineKeyboard;
} {
  const { t, session: s } = o;
  const lines = [
    `<b>${escapeHtml(t('card.title', { executor: t(`executor.${s.executor}`), node: o.nodeName }))}</b>`,
    escapeHtml(t('card.state', { state: t(`state.${s.state}`) })),
    escapeHtml(t('card.folder', { folder: s.folder })),
    escapeHtml(t('card.choices', { mode: permissionModeOf(s.executor, s.permissionMode), model: s.model ?? t('choice.cliDefault') })),
  ];
  if (s.title) lines.push(`<i>${escapeHtml(s.title.slice(0, 200))}</i>`);
  if (s.state !== 'Archived' && s.state !== 'ResumeFailed') lines.push(escapeHtml(formatLeft(t, s.lifetimeDeadline, o.now)));
  // While a turn runs: what the CLI does now, from its journal (never guessed from the screen).
  if (WORKING.has(s.state) && s.activity) lines.push(activityLine(t, s.activity, o.now));
  if (s.context) {
    const c = s.context;
    lines.push(
      escapeHtml(
        c.percent !== null && c.windowTokens !== null
          ? t('card.context', { percent: c.percent, window: c.windowTokens.toLocaleString('en-US'), compactions: c.compactions })
          : t('card.contextNoWindow', { tokens: c.usedTokens.toLocaleString('en-US'), compactions: c.compactions }),
      ),
    );
  } else {
    const tk = contextTokens(s.executor, s.usage);
    if (tk !== undefined) lines.push(escapeHtml(t('card.usage', { tokens: tk.toLocaleString('en-US') })));
  }
  const last = s.nativeLastActivity ?? s.lastActivityAt;
  if (last) lines.push(escapeHtml(t('card.lastActivity', { when: `${last.toISOString().slice(0, 16).replace('T', ' ')} UTC` })));
  if (s.state === 'AwaitingRecovery') lines.push(escapeHtml(t('card.recovery')));
  const kb = new InlineKeyboard();
  const ref = { gen: o.generation, sessionId: s.id, version: s.version };
  if (o.confirmClose && s.worktreeBranch && !s.worktreeRemovedAt) {
    // A session in its own worktree: Keep (first, the usual choice) or Remove it once the close is done.
    lines.push('', escapeHtml(t('close.worktreeQuestion', { branch: s.worktreeBranch })));
    kb.text(t('close.keep'), cb.encode({ a: 'closeYes', ...ref })).row();
    kb.text(t('close.remove'), cb.encode({ a: 'closeRm', ...ref })).row();
    kb.text(t('button.cancel'), cb.encode({ a: 'closeNo', ...ref }));
  } else if (o.confirmClose) {
    lines.push('', escapeHtml(t('card.closeConfirm')));
    kb.text(t('button.closeConfirm'), cb.encode({ a: 'closeYes', ...ref })).text(t('button.cancel'), cb.encode({ a: 'closeNo', ...ref }));
  } else if (WORKING.has(s.state) && s.state !== 'Stopping') {
    kb.text(t('button.stop'), cb.encode({ a: 'stop', ...ref }));
  } else if (CLOSABLE.has(s.state)) {
    kb.text(t('button.close'), cb.encode({ a: 'close', ...ref }));
  }
  kb.row()
    .text(t('button.sessions'), cb.encode({ a: 'sessions', gen: o.generation }))
    .text(t('button.newSession'), cb.encode({ a: 'new', gen: o.generation }));
  return { html: lines.join('\n'), keyboard: kb };
}
