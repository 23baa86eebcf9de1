import { isMessageKey } from '../../i18n/catalog.ts';
import { requestLocale } from '../../i18n/server.ts';

export const dynamic = 'force-dynamic';

const REASONS = new Set(['login.used', 'login.expired', 'login.unknown']);

/** Public: how to get a one-time login link, and why the last one was refused. */
export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { t } = await requestLocale();
  const raw = (await searchParams).reason;
  const reason = typeof raw === 'string' && REASONS.has(raw) && isMessageKey(raw) ? raw : null;
  return (
    <main className="narrow" id="main">
      <p className="brand brand-large">{t('app.name')}</p>
      <section className="card">
        {reason && (
          <div role="alert" className="notice notice-error" data-testid="login-refused">
            <strong>{t(reason)}</strong> {t('login.getNew')}
          </div>
        )}
        <h1>{t('signin.title')}</h1>
        <p>{t('signin.intro')}</p>
        <ol className="steps">
          <li>{t('signin.howBot')}</li>
          <li>{t('signin.howStart')}</li>
        </ol>
        <p className="muted small">{t('signin.validity')}</p>
      </section>
    </main>
  );
}
