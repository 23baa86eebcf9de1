'use client';
import { useQuery } from '@tanstack/react-query';
import { AddComputer } from './add-computer.tsx';
import { AllSessions } from './all-sessions.tsx';
import { useI18n } from './i18n-context.tsx';
import { NodeCard } from './node-card.tsx';
import { HomeLimits } from './usage/home-limits.tsx';
import { Skeleton } from './skeleton.tsx';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';

/** Home: every open session on every computer, and the computers beside them (live). */
export function Dashboard() {
  const { t } = useI18n();
  const errorText = useErrorText();
  const trpc = useTRPC();
  const nodes = useQuery(trpc.nodes.list.queryOptions());

  return (
    <div className="home">
      <AllSessions />
      <aside className="home-side" aria-labelledby="computers-title">
        <div className="section-head">
          <div>
            <h2 id="computers-title">{t('nodes.title')}</h2>
            <p className="muted small" aria-live="off">
              {t('nodes.updating')}
            </p>
          </div>
          <AddComputer />
        </div>
        {nodes.isError && !nodes.data && (
          <p role="alert" className="error">
            {t('nodes.loadFailed')} {errorText(nodes.error)}
          </p>
        )}
        {nodes.data && nodes.data.nodes.length === 0 && <p className="muted">{t('nodes.empty')}</p>}
        {nodes.isPending && <Skeleton lines={4} />}
        <div className="grid grid-side" aria-busy={nodes.isPending}>
          {nodes.data?.nodes.map((n) => (
            <NodeCard key={n.id} node={n} />
          ))}
        </div>
        <HomeLimits />
      </aside>
    </div>
  );
}
