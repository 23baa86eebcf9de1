'use client';
import { useRouter } from 'next/navigation';
import { LOCALES } from '../i18n/catalog.ts';
import { LOCALE_COOKIE } from '../i18n/pick-locale.ts';
import { useI18n } from './i18n-context.tsx';

/** English / Russian / the browser's language; kept in a cookie, applied by re-rendering on the server. */
export function LanguageSwitch({ chosen }: { chosen: string | null }) {
  const { t } = useI18n();
  const router = useRouter();
  const pick = (value: string) => {
    const secure = window.location.protocol === 'https:' ? '; Secure' : '';
    // biome-ignore lint/suspicious/noDocumentCookie: one plain cookie the server reads; the Cookie Store API is missing in some browsers
    document.cookie = value
      ? `${LOCALE_COOKIE}=${value}; Path=/; Max-Age=31536000; SameSite=Lax${secure}`
      : `${LOCALE_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax${secure}`;
    router.refresh();
  };
  return (
    <label className="lang">
      <span className="sr-only">{t('lang.label')}</span>
      <select data-testid="language-switch" aria-label={t('lang.label')} value={chosen ?? ''} onChange={(e) => pick(e.target.value)}>
        <option value="">{t('lang.auto')}</option>
        {LOCALES.map((l) => (
          <option key={l} value={l} lang={l}>
            {t(`lang.${l}`)}
          </option>
        ))}
      </select>
    </label>
  );
}
