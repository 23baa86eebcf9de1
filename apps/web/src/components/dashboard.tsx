'use client';
import { useMutation, useQuery } from '@tanstack/react-query';
import { AddComputer } from './add-computer.tsx';
import { useI18n } from './i18n-context.tsx';
import { NodeCard } from './node-card.tsx';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';

// Polling until hub → browser subscriptions exist; 2 s keeps "online" honest without load.
const POLL_MS = 2000;

export function Dashboard({ userName }: { userName: string }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const errorText = useErrorText();
  const nodes = useQuery(trpc.nodes.list.queryOptions(undefined, { refetchInterval: POLL_MS }));
  const logout = useMutation(trpc.auth.logout.mutationOptions({ onSettled: () => window.location.assign('/signin') }));

  return (
    <>
      <header className="topbar">
        <div className="wrap topbar-inner">
          <span className="brand">{t('app.name')}</span>
          <span className="muted user">{t('nav.signedInAs', { name: userName })}</span>
          <button type="button" className="btn btn-small" onClick={() => logout.mutate()} disabled={logout.isPending}>
            {t('nav.signOut')}
          </button>
        </div>
      </header>
      <main className="wrap" id="main">
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
      </main>
    </>
  );
}
