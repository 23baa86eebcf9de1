'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { InlineConfirm } from './inline-confirm.tsx';
import { shortDate } from './relative-time.ts';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';

/** A local `datetime-local` value an hour from now (rounded to the minute): the form's default. */
function inAnHour(): string {
  const d = new Date(Date.now() + 3_600_000);
  d.setSeconds(0, 0);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/**
 * Scheduled and recurring messages of one session (issue 33): what is planned, what each did last,
 * Cancel; and a form for "send at <time>" or "every <cron>" (in this browser's time zone), with
 * "skip or wait while a turn runs" and "resume the session first if it is closed".
 */
export function SchedulePanel({ sessionId }: { sessionId: string }) {
  const { t, locale } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const errorText = useErrorText();
  const id = useId();
  const list = useQuery(trpc.sessions.schedules.queryOptions({ sessionId }));
  const [text, setText] = useState('');
  const [kind, setKind] = useState<'once' | 'recurring'>('once');
  const [at, setAt] = useState(inAnHour);
  const [cron, setCron] = useState('0 9 * * 1-5');
  const [ifBusy, setIfBusy] = useState<'wait' | 'skip'>('wait');
  const [resume, setResume] = useState(false);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const refresh = () => queryClient.invalidateQueries(trpc.sessions.schedules.queryFilter({ sessionId }));
  const create = useMutation(
    trpc.sessions.scheduleMessage.mutationOptions({
      onSuccess: (s) => {
        setText('');
        setStatus({ ok: true, text: t('schedule.created', { when: s.nextRunAt ? shortDate(s.nextRunAt, locale) : '—' }) });
        void refresh();
      },
      onError: (err) => setStatus({ ok: false, text: errorText(err) }),
    }),
  );
  const cancel = useMutation(
    trpc.sessions.cancelSchedule.mutationOptions({
      onSuccess: () => void refresh(),
      onError: (err) => setStatus({ ok: false, text: errorText(err) }),
    }),
  );
  const schedules = list.data?.schedules ?? [];
  const active = schedules.filter((s) => s.status === 'active');
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  const submit = () => {
    if (!text.trim()) return;
    setStatus(null);
    if (kind === 'once') {
      const when = new Date(at);
      if (Number.isNaN(when.getTime())) return setStatus({ ok: false, text: t('schedules.in_past') });
      create.mutate({ sessionId, text, timeZone, resumeIfClosed: resume, when: { kind: 'once', runAt: when.toISOString() } });
    } else create.mutate({ sessionId, text, timeZone, resumeIfClosed: resume, when: { kind: 'recurring', cron, ifBusy } });
  };

  return (
    <details className="card" data-testid="schedules">
      <summary>{active.length ? t('schedule.titleCount', { count: active.length }) : t('schedule.title')}</summary>
      {schedules.length > 0 && (
        <ul className="push-devices stack" data-testid="schedule-list">
          {schedules.map((s) => (
            <li key={s.id} className="stack" data-testid="schedule" data-schedule-id={s.id} data-status={s.status}>
              <div className="mono small">{s.text.length > 200 ? `${s.text.slice(0, 199)}…` : s.text}</div>
              <div className="muted small">
                {s.kind === 'recurring' ? t('schedule.every', { cron: s.cron ?? '', zone: s.timeZone }) : t('schedule.once')}
                {' · '}
                {s.status === 'active' && s.nextRunAt ? t('schedule.next', { when: shortDate(s.nextRunAt, locale) }) : t(`schedule.status.${s.status}`)}
                {s.kind === 'recurring' && ` · ${t(s.ifBusy === 'skip' ? 'schedule.ifBusy.skip' : 'schedule.ifBusy.wait')}`}
                {s.resumeIfClosed && ` · ${t('schedule.resumes')}`}
              </div>
              {s.lastResult && (
                <div className="small" data-testid="schedule-last">
                  {t('schedule.last', { when: s.lastRunAt ? shortDate(s.lastRunAt, locale) : '—', result: s.lastResult })}
                </div>
              )}
              {s.status === 'active' && (
                <div>
                  <InlineConfirm
                    label={t('schedule.cancel')}
                    question={t('schedule.cancelQ')}
                    confirmLabel={t('schedule.cancelYes')}
                    onConfirm={() => cancel.mutate({ sessionId, scheduleId: s.id })}
                    testId="schedule-cancel"
                  />
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
        data-testid="schedule-form"
      >
        <label htmlFor={`${id}-text`}>{t('schedule.text')}</label>
        <textarea id={`${id}-text`} rows={3} value={text} onChange={(e) => setText(e.target.value)} data-testid="schedule-text" />
        <div className="radios" role="radiogroup" aria-label={t('schedule.when')}>
          <label className="check">
            <input type="radio" name={`${id}-kind`} checked={kind === 'once'} onChange={() => setKind('once')} />
            {t('schedule.kind.once')}
          </label>
          <label className="check">
            <input type="radio" name={`${id}-kind`} checked={kind === 'recurring'} onChange={() => setKind('recurring')} data-testid="schedule-recurring" />
            {t('schedule.kind.recurring')}
          </label>
        </div>
        {kind === 'once' ? (
          <label>
            {t('schedule.at')} <input type="datetime-local" value={at} onChange={(e) => setAt(e.target.value)} data-testid="schedule-at" />
          </label>
        ) : (
          <>
            <label>
              {t('schedule.cron')} <input value={cron} onChange={(e) => setCron(e.target.value)} className="mono" maxLength={120} data-testid="schedule-cron" />
            </label>
            <p className="muted small">{t('schedule.cronHelp', { zone: timeZone })}</p>
            <div className="radios" role="radiogroup" aria-label={t('schedule.when')}>
              {(['wait', 'skip'] as const).map((b) => (
                <label key={b} className="check">
                  <input type="radio" name={`${id}-busy`} checked={ifBusy === b} onChange={() => setIfBusy(b)} />
                  {t(`schedule.ifBusy.${b}`)}
                </label>
              ))}
            </div>
          </>
        )}
        <label className="check">
          <input type="checkbox" checked={resume} onChange={(e) => setResume(e.target.checked)} />
          {t('schedule.resumeIfClosed')}
        </label>
        <div className="actions">
          {status && (
            <span role={status.ok ? 'status' : 'alert'} className={`${status.ok ? 'ok-text' : 'error'} grow`} data-testid="schedule-status">
              {status.text}
            </span>
          )}
          <button type="submit" className="btn" disabled={!text.trim() || create.isPending} data-testid="schedule-submit">
            {t('schedule.submit')}
          </button>
        </div>
      </form>
    </details>
  );
}
