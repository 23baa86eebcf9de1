'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { ActivityLine } from './activity-rows.tsx';
import { isWorking } from './activity-stream.ts';
import { ArchiveList } from './archive-list.tsx';
import { NodeCard } from './node-card.tsx';
import { useI18n } from './i18n-context.tsx';
import { StateBadge, lifetimeLeft, sessionTitle, useNow, When } from './session-bits.tsx';
import { Skeleton } from './skeleton.tsx';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';

/** One computer: its open sessions (live) and its archive. */
export function NodeSessions({ nodeId }: { nodeId: string }) {
  const { t, locale } = useI18n();
  const trpc = useTRPC();
  const errorText = useErrorText();
  const now = useNow();
  const nodes = useQuery(trpc.nodes.list.queryOptions());
  const open = useQuery(trpc.sessions.listOpen.queryOptions({ nodeId }));
  const node = nodes.data?.nodes.find((n) => n.id === nodeId);

  return (
    <>
      <p className="crumbs">
        <Link href="/">← {t('node.back')}</Link>
      </p>
      <div className="section-head">
        <div>
          <h1>{node?.name ?? <span className="skeleton-bar skeleton-title" aria-hidden="true" />}</h1>
          {node && (
            <span className={`badge ${node.online ? 'badge-online' : 'badge-offline'}`} data-testid="node-status">
              <span className="dot" aria-hidden="true" />
              {node.online ? t('nodes.online') : t('nodes.offline')}
            </span>
          )}
        </div>
        {node?.online && node.enabledExecutors.length > 0 && (
          <Link className="btn btn-primary" href={`/nodes/${nodeId}/new`}>
            {t('node.newSession')}
          </Link>
        )}
      </div>
      {node && !node.online && <p className="notice notice-warn">{t('node.offlineNote')}</p>}

      <section aria-labelledby="open-title" className="block">
        <h2 id="open-title">{t('node.open')}</h2>
        {open.isError && !open.data && (
          <p role="alert" className="error">
            {errorText(open.error)}
          </p>
        )}
        {open.isPending && <Skeleton lines={3} />}
        {open.data?.sessions.length === 0 && <p className="muted">{t('node.openNone')}</p>}
        <ul className="rows" aria-busy={open.isPending} data-testid="open-sessions-list">
          {open.data?.sessions.map((s) => (
            <li key={s.id} className="row card" data-testid="open-session" data-session-id={s.id}>
              <div className="row-main">
                <Link href={`/sessions/${s.id}`} className="row-title">
                  {sessionTitle(s, t)}
                </Link>
                <span className="muted small mono">{s.folder}</span>
                {s.worktree && <span className="muted small mono">{t('session.branch', { branch: s.worktree.branch })}</span>}
              </div>
              <div className="row-facts">
                <StateBadge state={s.state} wait={s.promptWait} desk={s.desk} />
                <span className="small">{t(`executor.${s.executor}`)}</span>
                <span className="small">
                  <span className="muted">{t('session.lifetimeLeft')}: </span>
                  {lifetimeLeft(s, now, t)}
                </span>
                <span className="small">
                  <span className="muted">{t('session.lastActivity')}: </span>
                  <When iso={s.lastActivityAt} locale={locale} now={now} />
                </span>
              </div>
              {s.activity && isWorking(s.state) && <ActivityLine activity={s.activity} now={now} />}
            </li>
          ))}
        </ul>
      </section>

      {node && (
        <div className="node-page-card">
          <NodeCard node={node} own />
        </div>
      )}
      <ArchiveList nodeId={nodeId} />
    </>
  );
}
