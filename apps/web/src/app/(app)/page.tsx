import { CSRF_HEADER } from '@bria/core/trpc';
import { Dashboard } from '../../components/dashboard.tsx';
import { Providers } from '../../components/providers.tsx';
import { requestLocale } from '../../i18n/server.ts';
import { requireSession } from '../../server/session.ts';

export const dynamic = 'force-dynamic';

export default async function HomePage() {
  // Checked here too: a layout does not re-run on every client navigation.
  const session = await requireSession();
  const { locale } = await requestLocale();
  return (
    <Providers csrf={{ header: CSRF_HEADER, token: session.csrfToken }} locale={locale}>
      <Dashboard userName={session.user.name} />
    </Providers>
  );
}
