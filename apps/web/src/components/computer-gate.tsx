'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { ArchiveList } from './archive-list.tsx';
import { useI18n } from './i18n-context.tsx';
import { Skeleton } from './skeleton.tsx';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';

/**
 * A computer's pages (its sessions, New session) for the id in the URL: the page itself for a listed
 * computer; for a removed one its name, when it was removed, a way back and its archived sessions; for any other text one
 * message saying no computer has this id — never an empty page or the same input error twice.
 */
export function ComputerGate({ nodeId, children }: { nodeId: string; children: ReactNode }) {
  const { t, locale } = useI18n();
  const trpc = useTRPC();
  const errorText = useErrorText();
  const found = useQuery(trpc.nodes.find.queryOptions({ nodeId }));
  if (found.isPending) return <Skeleton lines={3} />;
  if (found.isError)
    return (
      <p role="alert" className="error">
        {errorText(found.error)}
      </p>
    );
  const f = found.data;
  if (f.status === 'listed') return children;
  const date = f.status === 'removed' ? new Intl.DateTimeFormat(locale, { dateStyle: 'long' }).format(new Date(f.removedAt)) : '';
  return (
    <>
      <p className="crumbs">
        <Link href="/">← {t('node.back')}</Link>
      </p>
      <section className="card stack" data-testid="computer-gone" data-status={f.status}>
        <h1>{f.status === 'removed' ? f.name : t('node.unknown.title')}</h1>
        <p data-testid="computer-gone-text">{f.status === 'removed' ? t('node.removed.text', { date }) : t('node.unknown.text')}</p>
        <p>
          <Link className="btn btn-primary" href="/">
            {t('node.back')}
          </Link>
        </p>
      </section>
      {f.status === 'removed' && <ArchiveList nodeId={f.nodeId} />}
    </>
  );
}
