'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useI18n } from '../i18n-context.tsx';
import { useTRPC } from '../trpc.ts';
import { LimitsList } from './limits-list.tsx';

/** Under the computers: each one's CLI usage limits, once any CLI reported one; the Usage page has the rest. */
export function HomeLimits() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const q = useQuery(trpc.usage.limits.queryOptions());
  if (!q.data || q.data.limits.length === 0) return null;
  return (
    <section className="card block" aria-labelledby="home-limits-title" data-testid="home-limits">
      <h2 id="home-limits-title">
        <Link href="/usage">{t('spend.limitsHome')}</Link>
      </h2>
      <LimitsList limits={q.data.limits} />
    </section>
  );
}
