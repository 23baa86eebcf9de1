'use client';
import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { ReactNode } from 'react';
import { useI18n } from './i18n-context.tsx';
import { LanguageSwitch } from './language-switch.tsx';
import { useLiveStatus } from './live.tsx';
import { useTRPC } from './trpc.ts';

/** The frame of every signed-in page: brand, navigation, live status, language, sign-out. */
export function AppShell({ userName, chosenLocale, children }: { userName: string; chosenLocale: string | null; children: ReactNode }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const live = useLiveStatus();
  const path = usePathname();
  const logout = useMutation(trpc.auth.logout.mutationOptions({ onSettled: () => window.location.assign('/signin') }));
  const settingsActive = path.startsWith('/settings');
  return (
    <>
      <a className="skip" href="#main">{t('nav.main')}</a>
      <header className="topbar">
        <div className="wrap topbar-inner">
          <Link href="/" className="brand">{t('app.name')}</Link>
          <nav aria-label={t('nav.main')} className="nav">
            <Link href="/" aria-current={!settingsActive ? 'page' : undefined}>{t('nav.computers')}</Link>
            <Link href="/settings" aria-current={settingsActive ? 'page' : undefined}>{t('nav.settings')}</Link>
          </nav>
          <span className={`live live-${live}`} title={t('live.title')} data-testid="live-status">
            <span className="dot" aria-hidden="true" />
            {live === 'live' ? t('live.on') : t('live.connecting')}
          </span>
          <LanguageSwitch chosen={chosenLocale} />
          <span className="muted user">{t('nav.signedInAs', { name: userName })}</span>
          <button type="button" className="btn btn-small" onClick={() => logout.mutate()} disabled={logout.isPending}>
            {t('nav.signOut')}
          </button>
        </div>
      </header>
      <main className="wrap" id="main">{children}</main>
    </>
  );
}
