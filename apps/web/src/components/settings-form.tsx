'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { Skeleton } from './skeleton.tsx';
import { SignOutEverywhere } from './node-actions.tsx';
import { NotificationsButton } from './toasts.tsx';
import { PushSettings } from './push/push-settings.tsx';
import { UsageSettings } from './usage/usage-settings.tsx';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';

const LIFETIMES = ['never', '6h', '12h', '24h', '48h'] as const;
type Lifetime = (typeof LIFETIMES)[number];

/**
 * Global settings the bot reads too. The Telegram users field only when the bot runs (`botOn`); the
 * computers' own settings live on their cards (home and each computer's page), not repeated here.
 */
export function SettingsForm({ botOn }: { botOn: boolean }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const errorText = useErrorText();
  const id = useId();
  const settings = useQuery(trpc.settings.get.queryOptions());
  // Edits live in a draft over the stored values: live reloads refresh what is shown until the user
  // starts editing, and never overwrite an edit. No copying of server data into state.
  const [draft, setDraft] = useState<{ lifetime?: Lifetime; resume?: boolean; users?: string } | null>(null);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const stored = settings.data;
  // Inputs stay disabled until React has hydrated them: a click on the server-rendered markup
  // before that would change the box on screen without reaching the draft (and Save would send
  // the old value).
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const ready = hydrated && stored !== undefined;
  const lifetime = draft?.lifetime ?? stored?.lifetime ?? '12h';
  const resume = draft?.resume ?? stored?.resumeRecommendations ?? false;
  const users = draft?.users ?? stored?.allowedTelegramUsers.join('\n') ?? '';
  const edit = (patch: NonNullable<typeof draft>) => setDraft((d) => ({ ...d, ...patch }));
  const save = useMutation(
    trpc.settings.update.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.settings.get.queryKey(), data);
        setDraft(null);
        setStatus({ ok: true, text: t('settings.saved') });
      },
      onError: (err) => setStatus({ ok: false, text: errorText(err) }),
    }),
  );

  const submit = () => {
    const list = users
      .split(/[\s,]+/)
      .map((u) => u.trim())
      .filter(Boolean);
    if (list.some((u) => !/^[1-9]\d{0,18}$/.test(u))) return setStatus({ ok: false, text: t('settings.usersInvalid') });
    setStatus(null);
    save.mutate({ lifetime, resumeRecommendations: resume, ...(botOn ? { allowedTelegramUsers: list } : {}) });
  };

  return (
    <>
      <h1 className="page-title">{t('settings.title')}</h1>
      {/* No controls until the stored values are in: a box drawn with a default (unchecked,
          12 h) before that would show — and let the user "keep" — a value that is not the stored one. */}
      {!ready && (
        <div className="card" data-testid="settings-loading">
          <Skeleton lines={4} />
        </div>
      )}
      {ready && (
        <form
          className="card stack"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <fieldset className="radios" disabled={!ready}>
            <legend>{t('settings.lifetime')}</legend>
            {LIFETIMES.map((l) => (
              <label key={l} className="check">
                <input type="radio" name="lifetime" value={l} checked={lifetime === l} onChange={() => edit({ lifetime: l })} />
                {l === 'never' ? t('settings.lifetime.never') : t('settings.lifetime.hours', { hours: l.slice(0, -1) })}
              </label>
            ))}
            <p className="muted small">{t('settings.lifetimeHelp')}</p>
          </fieldset>
          <div>
            <label className="check">
              <input type="checkbox" checked={resume} onChange={(e) => edit({ resume: e.target.checked })} disabled={!ready} />
              {t('settings.resume')}
            </label>
            <p className="muted small">{t('settings.resumeHelp')}</p>
          </div>
          {botOn && (
            <div>
              <label htmlFor={`${id}-u`}>{t('settings.users')}</label>
              <textarea id={`${id}-u`} rows={3} value={users} onChange={(e) => edit({ users: e.target.value })} className="mono" disabled={!ready} />
              <p className="muted small">{t('settings.usersHelp')}</p>
            </div>
          )}
          <div className="actions">
            {status && (
              <span role={status.ok ? 'status' : 'alert'} className={`${status.ok ? 'ok-text' : 'error'} grow`} data-testid="settings-status">
                {status.text}
              </span>
            )}
            <button type="submit" className="btn btn-primary" disabled={save.isPending || !ready}>
              {t('settings.save')}
            </button>
          </div>
        </form>
      )}
      <section className="card stack block" aria-labelledby={`${id}-n`}>
        <h2 id={`${id}-n`}>{t('notify.title')}</h2>
        <p className="muted small">{t('notify.help')}</p>
        <div>
          <NotificationsButton />
        </div>
      </section>
      <UsageSettings />
      <PushSettings />
      <SignOutEverywhere />
    </>
  );
}
