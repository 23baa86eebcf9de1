'use client';
import { PUSH_EVENT_KINDS, type PushEventKind } from '@bria/core/domain';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import type { MessageKey } from '../../i18n/catalog.ts';
import { useI18n } from '../i18n-context.tsx';
import { InlineConfirm } from '../inline-confirm.tsx';
import { relativeTime } from '../relative-time.ts';
import { useTRPC } from '../trpc.ts';
import { useErrorText } from '../use-error-text.ts';
import { defaultDeviceName, pushSupport, type SubscribeFailure, subscribeThisBrowser, unsubscribeThisBrowser } from './push-client.ts';

/** The device id this browser subscribed as (the server's row; re-subscribing keeps it). */
export const DEVICE_KEY = 'bria.pushDeviceId';

/** Every kind that can notify, as the routing rule names them. */
const KINDS = PUSH_EVENT_KINDS;
type Kind = PushEventKind;

const minutesOf = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};
const hhmmOf = (min: number): string => `${String(Math.floor(min / 60)).padStart(2, '0')}:${String(min % 60).padStart(2, '0')}`;

/** The words for a failed subscribe: which step, and that Telegram still gets everything. */
export function failureKey(f: SubscribeFailure): MessageKey {
  switch (f.step) {
    case 'permission':
      return f.permission === 'denied' ? 'push.fail.denied' : 'push.fail.dismissed';
    case 'no_key':
      return 'push.fail.noKey';
    case 'service_worker':
      return 'push.fail.worker';
    case 'push_service':
      return 'push.fail.service';
    default:
      return f satisfies never;
  }
}

/** Subscribing this browser: its state, the button, and what went wrong in words. */
export function PushThisDevice({ onSubscribed }: { onSubscribed?: () => void }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const errorText = useErrorText();
  const id = useId();
  const [support, setSupport] = useState<ReturnType<typeof pushSupport> | null>(null);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<{ ok: boolean; text: string; detail?: string } | null>(null);
  useEffect(() => {
    setSupport(pushSupport());
    setName(defaultDeviceName());
  }, []);
  const key = useQuery(trpc.push.vapidKey.queryOptions());
  const subscribe = useMutation(trpc.push.subscribe.mutationOptions());
  if (support === null) return null;
  if (support !== 'supported')
    return (
      <p className="muted small" data-testid="push-this-device" data-state={support}>
        {t(`push.unsupported.${support}`)}
      </p>
    );

  const turnOn = async () => {
    setBusy(true);
    setSaid(null);
    try {
      const r = await subscribeThisBrowser(key.data?.publicKey ?? null);
      if (!r.ok) {
        setSaid({ ok: false, text: t(failureKey(r.failure)), ...('detail' in r.failure ? { detail: r.failure.detail } : {}) });
        return;
      }
      const sub = r.subscription;
      if (!sub.endpoint || !sub.keys?.p256dh || !sub.keys.auth) {
        setSaid({ ok: false, text: t('push.fail.service'), detail: 'the browser gave a subscription without keys' });
        return;
      }
      const device = await subscribe.mutateAsync({
        subscription: { endpoint: sub.endpoint, keys: { p256dh: sub.keys.p256dh, auth: sub.keys.auth } },
        name: name.trim() || defaultDeviceName(),
        userAgent: navigator.userAgent.slice(0, 300),
      });
      localStorage.setItem(DEVICE_KEY, device.id);
      await queryClient.invalidateQueries({ queryKey: trpc.push.list.queryKey() });
      setSaid({ ok: true, text: t('push.subscribed', { name: device.name }) });
      onSubscribed?.();
    } catch (err) {
      setSaid({ ok: false, text: errorText(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="stack" data-testid="push-this-device" data-state="supported">
      <div className="actions">
        <label htmlFor={`${id}-name`} className="sr-only">
          {t('push.deviceName')}
        </label>
        <input id={`${id}-name`} value={name} maxLength={60} onChange={(e) => setName(e.target.value)} placeholder={t('push.deviceName')} />
        <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void turnOn()} data-testid="push-subscribe">
          {busy ? t('push.subscribing') : t('push.subscribe')}
        </button>
      </div>
      {said && (
        <p role={said.ok ? 'status' : 'alert'} className={said.ok ? 'ok-text small' : 'error small'} data-testid="push-subscribe-status">
          {said.text}
          {said.detail && <span className="muted"> ({said.detail})</span>}
        </p>
      )}
    </div>
  );
}

/** The user's subscribed devices: last push, last error, a test notification, remove. */
function PushDevices() {
  const { t, locale } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const errorText = useErrorText();
  const list = useQuery(trpc.push.list.queryOptions());
  const [mine, setMine] = useState<string | null>(null);
  useEffect(() => setMine(localStorage.getItem(DEVICE_KEY)), []);
  const [results, setResults] = useState<Record<string, { ok: boolean; text: string }>>({});
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.push.list.queryKey() });
  const test = useMutation(
    trpc.push.test.mutationOptions({
      onSuccess: (r, v) => {
        setResults((x) => ({ ...x, [v.id]: { ok: r.status === 'sent', text: t(`push.test.${r.status}`, { error: r.error ?? '' }) } }));
        void refresh();
      },
      onError: (err, v) => setResults((x) => ({ ...x, [v.id]: { ok: false, text: errorText(err) } })),
    }),
  );
  const remove = useMutation(
    trpc.push.remove.mutationOptions({
      onSuccess: async (r) => {
        if (r.id === localStorage.getItem(DEVICE_KEY)) {
          localStorage.removeItem(DEVICE_KEY);
          await unsubscribeThisBrowser().catch(() => undefined);
        }
        void refresh();
      },
      onError: (err, v) => setResults((x) => ({ ...x, [v.id]: { ok: false, text: errorText(err) } })),
    }),
  );
  const devices = list.data?.devices ?? [];
  if (list.isPending) return null;
  if (devices.length === 0)
    return (
      <p className="muted small" data-testid="push-devices-empty">
        {t('push.devices.none')}
      </p>
    );
  return (
    <ul className="push-devices stack" data-testid="push-devices">
      {devices.map((d) => (
        <li key={d.id} className="stack" data-testid="push-device" data-device-id={d.id}>
          <div>
            <strong>{d.name}</strong>
            {d.id === mine && <span className="pill"> {t('push.devices.this')}</span>}
            <div className="muted small">
              {d.service} · {t('push.devices.added', { when: relativeTime(d.createdAt, locale) })} ·{' '}
              {d.lastPushAt ? t('push.devices.last', { when: relativeTime(d.lastPushAt, locale) }) : t('push.devices.never')}
            </div>
            {d.lastError && <div className="error small">{t('push.devices.error', { error: d.lastError, count: d.failureCount })}</div>}
          </div>
          <div className="actions">
            <button type="button" className="btn" disabled={test.isPending} onClick={() => test.mutate({ id: d.id })} data-testid="push-test">
              {test.isPending && test.variables?.id === d.id ? t('push.test.sending') : t('push.test.button')}
            </button>
            <InlineConfirm
              label={t('push.devices.remove')}
              question={t('push.devices.removeQ', { name: d.name })}
              confirmLabel={t('push.devices.removeYes')}
              onConfirm={() => remove.mutate({ id: d.id })}
            />
          </div>
          {results[d.id] && (
            <p role={results[d.id]?.ok ? 'status' : 'alert'} className={results[d.id]?.ok ? 'ok-text small' : 'error small'} data-testid="push-test-result">
              {results[d.id]?.text}
            </p>
          )}
        </li>
      ))}
    </ul>
  );
}

/** What notifies: the mode, kinds, quiet hours and the first line. Each change is saved at once. */
function PushSwitches() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const errorText = useErrorText();
  const id = useId();
  const settings = useQuery(trpc.push.settings.queryOptions());
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const save = useMutation(
    trpc.push.updateSettings.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.push.settings.queryKey(), data);
        setStatus({ ok: true, text: t('settings.saved') });
      },
      onError: (err) => setStatus({ ok: false, text: errorText(err) }),
    }),
  );
  const s = settings.data;
  if (!s) return null;
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const q = s.quietHours;
  const setKind = (k: Kind, on: boolean) => save.mutate({ kindsOff: on ? s.kindsOff.filter((x) => x !== k) : [...s.kindsOff, k] });
  return (
    <fieldset className="stack" disabled={save.isPending} data-testid="push-switches">
      <legend>{t('push.switches')}</legend>
      <div className="radios" role="radiogroup" aria-label={t('push.mode')}>
        {(['telegram_and_push', 'push_when_telegram_off'] as const).map((m) => (
          <label key={m} className="check">
            <input type="radio" name={`${id}-mode`} checked={s.mode === m} onChange={() => save.mutate({ mode: m })} />
            {t(`push.mode.${m}`)}
          </label>
        ))}
      </div>
      <div className="stack">
        {KINDS.map((k) => (
          <label key={k} className="check">
            <input type="checkbox" checked={!s.kindsOff.includes(k)} onChange={(e) => setKind(k, e.target.checked)} data-kind={k} />
            {t(`push.kind.${k}`)}
          </label>
        ))}
      </div>
      <div>
        <label className="check">
          <input
            type="checkbox"
            checked={q !== null}
            onChange={(e) => save.mutate(e.target.checked ? { quietHours: { start: 22 * 60, end: 7 * 60 }, timeZone: zone } : { quietHours: null })}
            data-testid="push-quiet"
          />
          {t('push.quiet')}
        </label>
        {q && (
          <div className="actions">
            <label>
              {t('push.quiet.from')}{' '}
              <input
                type="time"
                value={hhmmOf(q.start)}
                onChange={(e) => e.target.value && save.mutate({ quietHours: { start: minutesOf(e.target.value), end: q.end }, timeZone: zone })}
              />
            </label>
            <label>
              {t('push.quiet.to')}{' '}
              <input
                type="time"
                value={hhmmOf(q.end)}
                onChange={(e) => e.target.value && save.mutate({ quietHours: { start: q.start, end: minutesOf(e.target.value) }, timeZone: zone })}
              />
            </label>
            <span className="muted small">{s.timeZone}</span>
          </div>
        )}
      </div>
      <label className="check">
        <input type="checkbox" checked={s.firstLine} onChange={(e) => save.mutate({ firstLine: e.target.checked })} data-testid="push-first-line" />
        {t('push.firstLine')}
      </label>
      <p className="muted small">{t('push.firstLineHelp')}</p>
      {status && (
        <p role={status.ok ? 'status' : 'alert'} className={status.ok ? 'ok-text small' : 'error small'} data-testid="push-switches-status">
          {status.text}
        </p>
      )}
    </fieldset>
  );
}

/** Settings' notifications card: this device, the devices, the switches. */
export function PushSettings() {
  const { t } = useI18n();
  const id = useId();
  return (
    <section className="card stack block" aria-labelledby={`${id}-p`} data-testid="push-settings">
      <h2 id={`${id}-p`}>{t('push.title')}</h2>
      <p className="muted small">{t('push.help')}</p>
      <PushThisDevice />
      <h3>{t('push.devices')}</h3>
      <PushDevices />
      <PushSwitches />
    </section>
  );
}
