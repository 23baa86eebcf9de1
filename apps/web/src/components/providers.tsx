'use client';
import type { AppRouter } from '@bria/core/trpc';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { useState, type ReactNode } from 'react';
import type { Locale } from '../i18n/catalog.ts';
import { I18nProvider } from './i18n-context.tsx';
import { LiveUpdates } from './live.tsx';
import { TRPCProvider } from './trpc.ts';

export interface CsrfProps {
  /** Header name and the token this page was rendered with; every mutation sends it. */
  header: string;
  token: string;
}

export function Providers({ csrf, locale, children }: { csrf: CsrfProps; locale: Locale; children: ReactNode }) {
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: true } } }));
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        splitLink({
          // Live updates arrive over Server-Sent Events; the session cookie goes with them (same origin).
          condition: (op) => op.type === 'subscription',
          true: httpSubscriptionLink({ url: '/api/trpc' }),
          false: httpBatchLink({ url: '/api/trpc', headers: () => ({ [csrf.header]: csrf.token }) }),
        }),
      ],
    }),
  );
  return (
    <I18nProvider locale={locale}>
      <QueryClientProvider client={queryClient}>
        <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
          <LiveUpdates>{children}</LiveUpdates>
        </TRPCProvider>
      </QueryClientProvider>
    </I18nProvider>
  );
}
