'use client';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useDeferredValue, useId, useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { sessionTitle, When } from './session-bits.tsx';
import { Skeleton } from './skeleton.tsx';
import { splitSnippet } from './snippet.ts';
import { useTRPC } from './trpc.ts';
import { EXECUTORS, type Executor } from './types.ts';
import { useErrorText } from './use-error-text.ts';

/** The matched words of a hit, as `<mark>` around text (never HTML from the string). */
export function Snippet({ text }: { text: string }) {
  return (
    <span className="snippet small" data-testid="archive-snippet">
      {splitSnippet(text).map((p, i) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: pieces of one fixed string
        p.marked ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>,
      )}
    </span>
  );
}

/**
 * The archive: one computer's (`nodeId`) or every computer's, with a computer filter and the
 * computer's name on each row. Searched over titles, folders and the whole conversation; paged by cursor.
 */
export function ArchiveList({ nodeId, heading = 'h2' }: { nodeId?: string; heading?: 'h1' | 'h2' }) {
  const { t, locale } = useI18n();
  const trpc = useTRPC();
  const errorText = useErrorText();
  const id = useId();
  const [search, setSearch] = useState('');
  const [executor, setExecutor] = useState<Executor | ''>('');
  const [computer, setComputer] = useState('');
  const allComputers = nodeId === undefined;
  const nodes = useQuery(trpc.nodes.list.queryOptions(undefined, { enabled: allComputers }));
  const q = useDeferredValue(search.trim());
  const node = nodeId ?? (computer || undefined);
  const archive = useInfiniteQuery(
    trpc.archive.list.infiniteQueryOptions(
      { ...(node ? { nodeId: node } : {}), limit: 30, ...(q ? { search: q } : {}), ...(executor ? { executor } : {}) },
      { getNextPageParam: (last) => last.nextCursor, initialCursor: null, placeholderData: (prev) => prev },
    ),
  );
  const items = archive.data?.pages.flatMap((p) => p.items) ?? [];
  const Heading = heading;

  return (
    <section aria-labelledby={`${id}-title`} className="block">
      <Heading id={`${id}-title`}>{t('archive.title')}</Heading>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <div className="grow">
          <label htmlFor={`${id}-q`}>{t('archive.search')}</label>
          <input id={`${id}-q`} type="search" value={search} maxLength={200} onChange={(e) => setSearch(e.target.value)} data-testid="archive-search" />
        </div>
        {allComputers && (
          <div>
            <label htmlFor={`${id}-n`}>{t('filter.computer')}</label>
            <select id={`${id}-n`} value={computer} onChange={(e) => setComputer(e.target.value)} data-testid="archive-computer">
              <option value="">{t('filter.allComputers')}</option>
              {nodes.data?.nodes.map((n) => (
                <option key={n.id} value={n.id}>
                  {n.name}
                </option>
              ))}
            </select>
          </div>
        )}
        <div>
          <label htmlFor={`${id}-x`}>{t('archive.executor')}</label>
          <select id={`${id}-x`} value={executor} onChange={(e) => setExecutor(e.target.value as Executor | '')}>
            <option value="">{t('archive.allExecutors')}</option>
            {EXECUTORS.map((x) => (
              <option key={x} value={x}>
                {t(`executor.${x}`)}
              </option>
            ))}
          </select>
        </div>
      </form>
      {archive.isError && !archive.data && (
        <p role="alert" className="error">
          {errorText(archive.error)}
        </p>
      )}
      {archive.isPending && <Skeleton lines={3} />}
      {archive.isSuccess && items.length === 0 && <p className="muted">{t('archive.empty')}</p>}
      <ul className="rows" aria-busy={archive.isFetching} data-testid="archive-list">
        {items.map((s) => (
          <li key={s.id} className="row card" data-testid="archived-session" data-session-id={s.id} data-node-id={s.nodeId}>
            <div className="row-main">
              <Link href={`/sessions/${s.id}`} className="row-title">
                {sessionTitle(s, t)}
              </Link>
              <span className="muted small">
                {allComputers && (
                  <>
                    <span data-testid="row-computer">{s.node.name}</span>
                    {s.node.removed && <> ({t('archive.removedComputer')})</>} ·{' '}
                  </>
                )}
                <span className="mono">{s.folder}</span>
              </span>
              {s.match && <Snippet text={s.match.snippet} />}
            </div>
            <div className="row-facts">
              <span className="small">{t(`executor.${s.executor}`)}</span>
              <span className="small">
                <span className="muted">{t('session.lastActivity')}: </span>
                <When iso={s.lastActivityAt ?? s.archivedAt} locale={locale} />
              </span>
              {s.nativeGoneAt && (
                <span className="badge state state-warn" data-testid="native-gone">
                  {t('archive.nativeGone')}
                </span>
              )}
            </div>
          </li>
        ))}
      </ul>
      <div className="actions actions-start">
        <span className="muted small" aria-live="polite">
          {archive.isSuccess ? t('archive.count', { count: items.length }) : ''}
        </span>
        {archive.hasNextPage && (
          <button type="button" className="btn" onClick={() => void archive.fetchNextPage()} disabled={archive.isFetchingNextPage}>
            {t('archive.more')}
          </button>
        )}
      </div>
    </section>
  );
}
