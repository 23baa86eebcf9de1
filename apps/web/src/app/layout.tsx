import type { Metadata, Viewport } from 'next';
import type { ReactNode } from 'react';
import { ServiceWorkerRegistration } from '../components/push/service-worker.tsx';
import { requestLocale } from '../i18n/server.ts';
import './globals.css';

export const metadata: Metadata = { title: 'Bria', description: 'Bria dashboard', robots: { index: false, follow: false } };
export const viewport: Viewport = { width: 'device-width', initialScale: 1, themeColor: '#1f3a5f' };

export default async function RootLayout({ children }: { children: ReactNode }) {
  const { locale } = await requestLocale();
  return (
    <html lang={locale}>
      <body>
        {children}
        <ServiceWorkerRegistration />
      </body>
    </html>
  );
}
