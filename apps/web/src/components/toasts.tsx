'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { sessionTitle } from './session-bits.tsx';
import { finishedSince, sessionOnScreen } from './toast-rules.ts';
import { useOpenSessions } from './use-open-sessions.ts';

interface Toast {
  id: string;
  sessionId: string;
  title: string;
  node: string;
}
const TOAST_MS = 15_000;

/**
 * A background session that finishes its answer while you look at another page shows a toast with
 * a link (the open lists follow the live stream). With the tab hidden and notifications allowed
 * (asked by a button in Settings, never on load), the browser shows one too.
 */
export function FinishedToasts() {
  const { t } = useI18n();
  const path = usePathname();
  const open = useOpenSessions();
  const prev = useRef<Map<string, string> | null>(null);
  const [toasts, setToasts] = useState<Toast[]>([]);
  const key = open.sessions
    .map((s) => `${s.id}:${s.state}`)
    .sort()
    .join(',');
  const pending = open.pending;

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the states (the key) change
  useEffect(() => {
    if (pending) return;
    const done = finishedSince(prev.current, open.sessions, sessionOnScreen(path));
    prev.current = new Map(open.sessions.map((s) => [s.id, s.state]));
    if (done.length === 0) return;
    const fresh = done.map((sid) => {
      const s = open.sessions.find((x) => x.id === sid);
      return { id: `${sid}-${Date.now()}`, sessionId: sid, title: s ? sessionTitle(s, t) : '', node: s?.nodeName ?? '' };
    });
    setToasts((ts) => [...ts, ...fresh].slice(-4));
    if (document.hidden && typeof Notification !== 'undefined' && Notification.permission === 'granted') {
      for (const f of fresh) {
        const n = new Notification(t('toast.finished', { title: f.title }), { body: f.node, tag: f.sessionId });
        n.onclick = () => {
          window.focus();
          window.location.assign(`/sessions/${f.sessionId}`);
        };
      }
    }
  }, [key, pending]);

  useEffect(() => {
    if (toasts.length === 0) return;
    const timer = setTimeout(() => setToasts((ts) => ts.slice(1)), TOAST_MS);
    return () => clearTimeout(timer);
  }, [toasts]);

  return (
    <div className="toasts" aria-live="polite" data-testid="toasts">
      {toasts.map((x) => (
        <div key={x.id} className="toast card" role="status" data-testid="toast">
          <span className="grow">
            {t('toast.finished', { title: x.title })} <span className="muted small">{x.node}</span>
          </span>
          <Link href={`/sessions/${x.sessionId}`} onClick={() => setToasts((ts) => ts.filter((y) => y.id !== x.id))}>
            {t('toast.open')}
          </Link>
          <button type="button" className="btn btn-small" aria-label={t('toast.dismiss')} onClick={() => setToasts((ts) => ts.filter((y) => y.id !== x.id))}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

/** Asks for browser notifications on a press (never on load); shows what was decided. */
export function NotificationsButton() {
  const { t } = useI18n();
  const [perm, setPerm] = useState<NotificationPermission | 'unsupported' | null>(null);
  useEffect(() => setPerm(typeof Notification === 'undefined' ? 'unsupported' : Notification.permission), []);
  if (perm === null) return null;
  if (perm === 'unsupported') return <p className="muted small">{t('notify.unsupported')}</p>;
  if (perm === 'granted')
    return (
      <p className="ok-text small" data-testid="notify-state">
        {t('notify.on')}
      </p>
    );
  if (perm === 'denied')
    return (
      <p className="muted small" data-testid="notify-state">
        {t('notify.denied')}
      </p>
    );
  return (
    <button type="button" className="btn" onClick={() => void Notification.requestPermission().then(setPerm)}>
      {t('notify.ask')}
    </button>
  );
}
