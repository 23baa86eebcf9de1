import { CSRF_HEADER } from '@bria/core/trpc';
import type { ReactNode } from 'react';
import { AppShell } from '../../components/app-shell.tsx';
import { Providers } from '../../components/providers.tsx';
import { requestLocale } from '../../i18n/server.ts';
import { requireSession } from '../../server/session.ts';

export const dynamic = 'force-dynamic';

/** Everything in this group needs a signed-in browser; one live-update stream serves all its pages. */
export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const session = await requireSession();
  const { locale, chosen } = await requestLocale();
  return (
    <Providers csrf={{ header: CSRF_HEADER, token: session.csrfToken }} locale={locale}>
      <AppShell userName={session.user.name} chosenLocale={chosen}>
        {children}
      </AppShell>
    </Providers>
  );
}
