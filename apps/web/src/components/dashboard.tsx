'use client';
import { useQuery } from '@tanstack/react-query';
import { AddComputer } from './add-computer.tsx';
import { useI18n } from './i18n-context.tsx';
import { NodeCard } from './node-card.tsx';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';

/** The computers page; it reloads when the live stream says a node or session changed. */
export function Dashboard() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const errorText = useErrorText();
  const nodes = useQuery(trpc.nodes.list.queryOptions());

  return (
    <>
      <div className="section-head">
        <div>
          <h1>{t('nodes.title')}</h1>
          <p className="muted small" aria-live="off">{t('nodes.updating')}</p>
        </div>
        <AddComputer />
      </div>
      {nodes.isError && !nodes.data && <p role="alert" className="error">{t('nodes.loadFailed')} {errorText(nodes.error)}</p>}
      {nodes.data && nodes.data.nodes.length === 0 && <p className="muted">{t('nodes.empty')}</p>}
      <div className="grid" aria-busy={nodes.isPending}>
        {nodes.data?.nodes.map((n) => <NodeCard key={n.id} node={n} />)}
      </div>
    </>
  );
}
