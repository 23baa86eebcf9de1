import Link from 'next/link';
import { requestLocale } from '../i18n/server.ts';

/** Branded "not here" page with a way back, in the visitor's language. */
export default async function NotFound() {
  const { t } = await requestLocale();
  return (
    <main className="narrow" data-testid="not-found">
      <p className="brand brand-large">{t('app.name')}</p>
      <h1>{t('notFound.title')}</h1>
      <p className="muted">{t('notFound.text')}</p>
      <p>
        <Link className="btn btn-primary" href="/">
          {t('notFound.back')}
        </Link>
      </p>
    </main>
  );
}
