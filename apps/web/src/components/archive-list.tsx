'use client';
import { useInfiniteQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useDeferredValue, useId, useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { sessionTitle, When } from './session-bits.tsx';
import { useTRPC } from './trpc.ts';
import { EXECUTORS, type Executor } from './types.ts';
import { useErrorText } from './use-error-text.ts';

/** A node's archive: Bria's own and discovered sessions alike, searched and paged by cursor. */
export function ArchiveList({ nodeId }: { nodeId: string }) {
  const { t, locale } = useI18n();
  const trpc = useTRPC();
  const errorText = useErrorText();
  const id = useId();
  const [search, setSearch] = useState('');
  const [executor, setExecutor] = useState<Executor | ''>('');
  const q = useDeferredValue(search.trim());
  const archive = useInfiniteQuery(
    trpc.archive.list.infiniteQueryOptions(
      { nodeId, limit: 30, ...(q ? { search: q } : {}), ...(executor ? { executor } : {}) },
      { getNextPageParam: (last) => last.nextCursor, initialCursor: null },
    ),
  );
  const items = archive.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <section aria-labelledby={`${id}-title`} className="block">
      <h2 id={`${id}-title`}>{t('archive.title')}</h2>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <div className="grow">
          <label htmlFor={`${id}-q`}>{t('archive.search')}</label>
          <input id={`${id}-q`} type="search" value={search} maxLength={200} onChange={(e) => setSearch(e.target.value)} data-testid="archive-search" />
        </div>
        <div>
          <label htmlFor={`${id}-x`}>{t('archive.executor')}</label>
          <select id={`${id}-x`} value={executor} onChange={(e) => setExecutor(e.target.value as Executor | '')}>
            <option value="">{t('archive.allExecutors')}</option>
            {EXECUTORS.map((x) => <option key={x} value={x}>{t(`executor.${x}`)}</option>)}
          </select>
        </div>
      </form>
      {archive.isError && <p role="alert" className="error">{errorText(archive.error)}</p>}
      {archive.isSuccess && items.length === 0 && <p className="muted">{t('archive.empty')}</p>}
      <ul className="rows" aria-busy={archive.isFetching} data-testid="archive-list">
        {items.map((s) => (
          <li key={s.id} className="row card" data-testid="archived-session" data-session-id={s.id}>
            <div className="row-main">
              <Link href={`/sessions/${s.id}`} className="row-title">{sessionTitle(s, t)}</Link>
              <span className="muted small mono">{s.folder}</span>
            </div>
            <div className="row-facts">
              <span className="small">{t(`executor.${s.executor}`)}</span>
              <span className="small"><span className="muted">{t('session.lastActivity')}: </span><When iso={s.lastActivityAt ?? s.archivedAt} locale={locale} /></span>
              {s.nativeGoneAt && <span className="badge state state-warn" data-testid="native-gone">{t('archive.nativeGone')}</span>}
            </div>
          </li>
        ))}
      </ul>
      <div className="actions actions-start">
        <span className="muted small" aria-live="polite">{archive.isSuccess ? t('archive.count', { count: items.length }) : ''}</span>
        {archive.hasNextPage && (
          <button type="button" className="btn" onClick={() => void archive.fetchNextPage()} disabled={archive.isFetchingNextPage}>
            {t('archive.more')}
          </button>
        )}
      </div>
    </section>
  );
}
