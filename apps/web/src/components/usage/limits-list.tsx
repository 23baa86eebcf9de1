'use client';
import { useI18n } from '../i18n-context.tsx';

export interface LimitItem {
  nodeId: string;
  nodeName: string;
  executor: 'claude' | 'codex';
  reached: boolean;
  resetsAt: string | null;
  windows: { name: string; usedPercent: number; windowMinutes?: number | undefined }[];
  text: string | null;
  observedAt: string;
}

/** Whether a limit still holds at `now`: reached, with its reset ahead or unknown. */
export function limitActive(l: Pick<LimitItem, 'reached' | 'resetsAt'>, now: number): boolean {
  return l.reached && (l.resetsAt === null || Date.parse(l.resetsAt) > now);
}

/** Each computer's CLIs with the usage-limit state their journals last showed. */
export function LimitsList({ limits, now = Date.now() }: { limits: LimitItem[]; now?: number }) {
  const { t, locale } = useI18n();
  const time = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
  if (limits.length === 0) return <p className="muted">{t('spend.limitsEmpty')}</p>;
  return (
    <ul className="limits" data-testid="usage-limits">
      {limits.map((l) => {
        const active = limitActive(l, now);
        return (
          <li key={`${l.nodeId}-${l.executor}`} data-testid="usage-limit" data-reached={active ? 'true' : 'false'}>
            <strong>{l.nodeName}</strong> · {t(`executor.${l.executor}`)}:{' '}
            {active ? (
              <span className="limit-reached">
                {l.resetsAt ? t('spend.limitReached', { time: time.format(Date.parse(l.resetsAt)) }) : t('spend.limitReachedNoTime')}
              </span>
            ) : (
              <span>{t('spend.limitOk')}</span>
            )}
            {l.windows.length > 0 && (
              <span className="muted small">
                {' '}
                (
                {l.windows
                  .map((w) => t('spend.window', { name: w.windowMinutes ? windowName(w.windowMinutes, t) : w.name, percent: Math.round(w.usedPercent) }))
                  .join(', ')}
                )
              </span>
            )}
            <span className="muted small"> · {t('spend.observed', { time: time.format(Date.parse(l.observedAt)) })}</span>
          </li>
        );
      })}
    </ul>
  );
}

function windowName(minutes: number, t: ReturnType<typeof useI18n>['t']): string {
  return minutes % 1440 === 0 ? t('spend.windowDays', { days: minutes / 1440 }) : t('spend.windowHours', { hours: Math.round(minutes / 60) });
}
