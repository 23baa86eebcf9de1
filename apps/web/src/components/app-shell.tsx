'use client';
import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { ReactNode } from 'react';
import { useI18n } from './i18n-context.tsx';
import { LanguageSwitch } from './language-switch.tsx';
import { useLiveStatus } from './live.tsx';
import { FinishedToasts } from './toasts.tsx';
import { useTRPC } from './trpc.ts';

/** The frame of every signed-in page: brand, navigation, live status, language, sign-out. */
export function AppShell({ userName, chosenLocale, children }: { userName: string; chosenLocale: string | null; children: ReactNode }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const live = useLiveStatus();
  const path = usePathname();
  const logout = useMutation(trpc.auth.logout.mutationOptions({ onSettled: () => window.location.assign('/signin') }));
  const section = path.startsWith('/settings') ? 'settings' : path.startsWith('/archive') ? 'archive' : path.startsWith('/usage') ? 'usage' : 'home';
  const current = (s: typeof section) => (section === s ? 'page' : undefined);
  return (
    <>
      <a className="skip" href="#main">
        {t('nav.main')}
      </a>
      <header className="topbar">
        <div className="wrap topbar-inner">
          <Link href="/" className="brand">
            {t('app.name')}
          </Link>
          <nav aria-label={t('nav.main')} className="nav">
            <Link href="/" aria-current={current('home')}>
              {t('nav.home')}
            </Link>
            <Link href="/archive" aria-current={current('archive')}>
              {t('nav.archive')}
            </Link>
            <Link href="/usage" aria-current={current('usage')}>
              {t('nav.usage')}
            </Link>
            <Link href="/settings" aria-current={current('settings')}>
              {t('nav.settings')}
            </Link>
          </nav>
          <span className={`live live-${live}`} title={t('live.title')} data-testid="live-status">
            <span className="dot" aria-hidden="true" />
            {live === 'live' ? t('live.on') : live === 'reconnecting' ? t('live.reconnecting') : t('live.connecting')}
          </span>
          <LanguageSwitch chosen={chosenLocale} />
          <span className="muted user">{t('nav.signedInAs', { name: userName })}</span>
          <button type="button" className="btn btn-small" onClick={() => logout.mutate()} disabled={logout.isPending}>
            {t('nav.signOut')}
          </button>
        </div>
      </header>
      {live === 'reconnecting' && (
        <div className="banner" role="status" data-testid="reconnecting">
          <div className="wrap">{t('live.lost')}</div>
        </div>
      )}
      <main className="wrap" id="main">
        {children}
      </main>
      <FinishedToasts />
    </>
  );
}
