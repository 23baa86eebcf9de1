'use client';
import Link from 'next/link';
import { useId, useState } from 'react';
import { ActivityLine } from './activity-rows.tsx';
import { isWorking } from './activity-stream.ts';
import { useI18n } from './i18n-context.tsx';
import { StateBadge, sessionTitle, useNow, When } from './session-bits.tsx';
import { lastSeenAt, STATE_GROUPS, type SessionFilter } from './session-filters.ts';
import { Skeleton } from './skeleton.tsx';
import { EXECUTORS } from './types.ts';
import { useOpenSessions } from './use-open-sessions.ts';
import { useErrorText } from './use-error-text.ts';

/** Every open session across computers, newest activity first, filtered by computer, agent and state (one server call). */
export function AllSessions() {
  const { t, locale } = useI18n();
  const errorText = useErrorText();
  const id = useId();
  const now = useNow(5_000);
  const [filter, setFilter] = useState<SessionFilter>({ nodeId: '', executor: '', group: '' });
  const set = (patch: Partial<SessionFilter>) => setFilter((f) => ({ ...f, ...patch }));
  const open = useOpenSessions(filter);
  const nodes = open.nodes.data?.nodes ?? [];
  // While another filter's list loads, the previous one stays (marked busy) rather than a blank list.
  const shown = open.sessions;
  const filtered = filter.nodeId !== '' || filter.executor !== '' || filter.group !== '';

  return (
    <section aria-labelledby={`${id}-title`} className="home-main">
      <div className="section-head">
        <h1 id={`${id}-title`}>{t('home.title')}</h1>
      </div>
      <form className="filters" onSubmit={(e) => e.preventDefault()} data-testid="session-filters">
        <div>
          <label htmlFor={`${id}-n`}>{t('filter.computer')}</label>
          <select id={`${id}-n`} value={filter.nodeId} onChange={(e) => set({ nodeId: e.target.value })}>
            <option value="">{t('filter.allComputers')}</option>
            {nodes.map((n) => (
              <option key={n.id} value={n.id}>
                {n.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={`${id}-x`}>{t('archive.executor')}</label>
          <select id={`${id}-x`} value={filter.executor} onChange={(e) => set({ executor: e.target.value as SessionFilter['executor'] })}>
            <option value="">{t('archive.allExecutors')}</option>
            {EXECUTORS.map((x) => (
              <option key={x} value={x}>
                {t(`executor.${x}`)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={`${id}-s`}>{t('filter.state')}</label>
          <select id={`${id}-s`} value={filter.group} onChange={(e) => set({ group: e.target.value as SessionFilter['group'] })}>
            <option value="">{t('filter.allStates')}</option>
            {STATE_GROUPS.map((g) => (
              <option key={g} value={g}>
                {t(`filter.group.${g}`)}
              </option>
            ))}
          </select>
        </div>
      </form>
      {open.error && open.sessions.length === 0 && (
        <p role="alert" className="error">
          {errorText(open.error)}
        </p>
      )}
      {open.pending && open.sessions.length === 0 && <Skeleton lines={3} />}
      {!open.pending && !open.stale && shown.length === 0 && (
        <p className="muted" data-testid="home-empty">
          {filtered ? t('home.noneMatch') : t('home.none')}
        </p>
      )}
      <ul className="rows" aria-busy={open.pending || open.stale} data-testid="all-sessions">
        {shown.map((s) => (
          <li key={s.id} className="row card" data-testid="open-session" data-session-id={s.id} data-node-id={s.nodeId}>
            <div className="row-main">
              <Link href={`/sessions/${s.id}`} className="row-title">
                {sessionTitle(s, t)}
              </Link>
              <span className="muted small">
                <span data-testid="row-computer">{s.nodeName}</span>
                {!s.nodeOnline && <> · {t('nodes.offline')}</>}
                {' · '}
                <span className="mono">{s.folder}</span>
                {s.worktree && (
                  <>
                    {' · '}
                    <span className="mono">{t('session.branch', { branch: s.worktree.branch })}</span>
                  </>
                )}
              </span>
            </div>
            <div className="row-facts">
              <StateBadge state={s.state} wait={s.promptWait} desk={s.desk} />
              <span className="small">{t(`executor.${s.executor}`)}</span>
              <span className="small">
                <span className="muted">{t('session.lastActivity')}: </span>
                <When iso={lastSeenAt(s)} locale={locale} now={now} />
              </span>
            </div>
            {s.activity && isWorking(s.state) && <ActivityLine activity={s.activity} now={now} />}
          </li>
        ))}
      </ul>
    </section>
  );
}
