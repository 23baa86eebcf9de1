'use client';
import { useEffect } from 'react';

/**
 * Registers the dashboard's service worker (`public/sw.js`: offline shell, Web Push) on every
 * page, the sign-in page included, so the offline shell works wherever the user was. A browser
 * without service workers (or a page not in a secure context) simply has neither.
 */
export function ServiceWorkerRegistration() {
  useEffect(() => {
    if (!('serviceWorker' in navigator)) return;
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((err: unknown) => {
      console.warn('Bria: the service worker did not register', err);
    });
  }, []);
  return null;
}
