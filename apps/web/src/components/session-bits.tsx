'use client';
import type { Locale, Translate } from '../i18n/catalog.ts';
import { every, useClock } from './clock.ts';
import { useI18n } from './i18n-context.tsx';
import { nextChangeMs, relativeTime, shortDate } from './relative-time.ts';
import type { SessionItem } from './types.ts';

/** The current time, refreshed every `ms` by the page's one clock: lifetimes count down without reloading anything. */
export function useNow(ms = 30_000): number {
  return useClock(every(ms), ms);
}

const TONE: Record<SessionItem['state'], string> = {
  Starting: 'wait',
  Resuming: 'wait',
  Ready: 'ok',
  Running: 'busy',
  Stopping: 'wait',
  ClosingAfterWork: 'wait',
  AwaitingRecovery: 'warn',
  Closing: 'wait',
  Archived: 'off',
  ResumeFailed: 'bad',
};

/**
 * `wait`: an open session whose CLI asks something (sessions `promptWait`) says so instead of
 * "working": the user's answer, or the computer's, is what it waits for.
 */
export function StateBadge({
  state,
  wait = null,
  desk = null,
}: {
  state: SessionItem['state'];
  wait?: 'answer' | 'computer' | null;
  desk?: SessionItem['desk'];
}) {
  const { t } = useI18n();
  if (desk) {
    // Its CLI runs in a terminal at the computer (begun by hand, or taken back there): live, never "archived".
    return (
      <span className="badge state state-busy" data-testid="session-state" data-state={state} data-desk={desk.handoff}>
        <span className="dot" aria-hidden="true" />
        {t('desk.badge')}
      </span>
    );
  }
  const shown = wait && state !== 'Archived' && state !== 'ResumeFailed' ? wait : null;
  return (
    <span className={`badge state state-${shown ? 'warn' : TONE[state]}`} data-testid="session-state" data-state={state} data-wait={shown ?? undefined}>
      <span className="dot" aria-hidden="true" />
      {shown ? t(shown === 'answer' ? 'state.waitingAnswer' : 'state.waitingComputer') : t(`state.${state}`)}
    </span>
  );
}

export function lifetimeLeft(s: Pick<SessionItem, 'lifetimeDeadline' | 'lifetimeExpired' | 'state'>, now: number, t: Translate): string {
  // A closed session has no lifetime running, whatever its deadline was.
  if (s.state === 'Archived' || s.state === 'ResumeFailed') return t('session.lifetimeClosed');
  if (!s.lifetimeDeadline) return t('session.lifetimeNever');
  // `now` ticks every 30 s; a deadline just set (a resume) must not read longer than the lifetime.
  const ms = new Date(s.lifetimeDeadline).getTime() - Math.max(now, Date.now());
  if (s.lifetimeExpired || ms <= 0) return t('session.lifetimeExpired');
  const minutes = Math.ceil(ms / 60_000);
  const h = Math.floor(minutes / 60);
  return h > 0 ? t('time.hm', { h, m: minutes % 60 }) : t('time.m', { m: minutes });
}

export function When({ iso, locale, now }: { iso: string | null; locale: Locale; now?: number }) {
  const { t } = useI18n();
  // Redrawn when its text changes ("5 seconds ago" each second, "5 minutes ago" each minute), by the page's one clock.
  useClock((now) => (iso ? nextChangeMs(iso, now) : 3_600_000), iso);
  if (!iso) return <>{t('session.noActivity')}</>;
  // `now` only makes the text tick; a timestamp newer than the last tick is "now", never "in 3 seconds".
  const at = Math.max(now ?? 0, Date.now(), new Date(iso).getTime());
  return (
    <time dateTime={iso} title={shortDate(iso, locale)}>
      {relativeTime(iso, locale, at)}
    </time>
  );
}

/** The CLI's own title, else the first prompt (as the CLIs' resume pickers show), else the folder. */
export function sessionTitle(s: Pick<SessionItem, 'title' | 'firstPrompt' | 'folder'>, t: Translate): string {
  const prompt = s.firstPrompt?.replace(/\s+/g, ' ').trim();
  return (
    s.title?.trim() ||
    (prompt && prompt.length > 80 ? `${prompt.slice(0, 79)}…` : prompt) ||
    s.folder.split('/').filter(Boolean).at(-1) ||
    t('session.untitled')
  );
}
