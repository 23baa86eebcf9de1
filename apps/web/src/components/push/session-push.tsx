'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useI18n } from '../i18n-context.tsx';
import { useTRPC } from '../trpc.ts';
import { useErrorText } from '../use-error-text.ts';
import { pushSupport } from './push-client.ts';
import { DEVICE_KEY, PushThisDevice } from './push-settings.tsx';

/** How often a visible session page says so (the server keeps a report 45 s: two misses and it lapses). */
const VISIBLE_EVERY_MS = 20_000;

/**
 * While this session's page is visible, the hub pushes nothing about the session to any device
 * (the user is looking at it): the page reports itself every 20 s, and `null` when hidden or left.
 */
export function usePushVisibility(sessionId: string): void {
  const trpc = useTRPC();
  const { mutate } = useMutation(trpc.push.visibility.mutationOptions());
  useEffect(() => {
    const report = () => mutate({ sessionId: document.visibilityState === 'visible' ? sessionId : null });
    report();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') report();
    }, VISIBLE_EVERY_MS);
    document.addEventListener('visibilitychange', report);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', report);
      mutate({ sessionId: null });
    };
  }, [sessionId, mutate]);
}

/** "Mute notifications for this session": push only; Telegram still gets everything. */
export function SessionPushMute({ sessionId }: { sessionId: string }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const errorText = useErrorText();
  const muted = useQuery(trpc.push.muted.queryOptions({ sessionId }));
  const [error, setError] = useState<string | null>(null);
  const set = useMutation(
    trpc.push.mute.mutationOptions({
      onSuccess: (r) => {
        setError(null);
        queryClient.setQueryData(trpc.push.muted.queryKey({ sessionId }), r);
      },
      onError: (err) => setError(errorText(err)),
    }),
  );
  if (!muted.data) return null;
  return (
    <div>
      <label className="check">
        <input
          type="checkbox"
          checked={muted.data.muted}
          disabled={set.isPending}
          onChange={(e) => set.mutate({ sessionId, muted: e.target.checked })}
          data-testid="push-mute"
        />
        {t('push.mute')}
      </label>
      {muted.data.muted && <p className="muted small">{t('push.muted')}</p>}
      {error && (
        <p role="alert" className="error small">
          {error}
        </p>
      )}
    </div>
  );
}

const OFFERED_KEY = 'bria.pushOffered';
export const ANSWERED_EVENT = 'bria:prompt-answered';

/**
 * The one-time offer after the first permission request answered here: "get notified on this
 * device?". Shown once per browser (either choice ends it), never where push cannot work, where
 * notifications are blocked, or on a device already subscribed.
 */
export function PushOffer() {
  const { t } = useI18n();
  const [show, setShow] = useState(false);
  useEffect(() => {
    const onAnswered = () => {
      if (localStorage.getItem(OFFERED_KEY) || localStorage.getItem(DEVICE_KEY)) return;
      if (pushSupport() !== 'supported' || Notification.permission === 'denied') return;
      setShow(true);
    };
    window.addEventListener(ANSWERED_EVENT, onAnswered);
    return () => window.removeEventListener(ANSWERED_EVENT, onAnswered);
  }, []);
  if (!show) return null;
  const done = () => {
    localStorage.setItem(OFFERED_KEY, new Date().toISOString());
    setShow(false);
  };
  return (
    <section className="card stack" aria-label={t('push.title')} data-testid="push-offer">
      <p>{t('push.offer')}</p>
      <PushThisDevice onSubscribed={() => localStorage.setItem(OFFERED_KEY, new Date().toISOString())} />
      <div>
        <button type="button" className="btn" onClick={done} data-testid="push-offer-later">
          {t('push.offer.later')}
        </button>
      </div>
    </section>
  );
}
