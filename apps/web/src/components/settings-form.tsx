'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { NodeCard } from './node-card.tsx';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';

const LIFETIMES = ['never', '6h', '12h', '24h', '48h'] as const;
type Lifetime = (typeof LIFETIMES)[number];

/** Global settings the bot reads too, and the agents enabled on each computer. */
export function SettingsForm() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const errorText = useErrorText();
  const id = useId();
  const settings = useQuery(trpc.settings.get.queryOptions());
  const nodes = useQuery(trpc.nodes.list.queryOptions());
  const [lifetime, setLifetime] = useState<Lifetime>('12h');
  const [resume, setResume] = useState(false);
  const [users, setUsers] = useState('');
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  // The form is usable only once it shows the stored values (not the defaults it started with).
  const [applied, setApplied] = useState<string | null>(null);
  // The form takes the stored values when they really change (first load, a save here or in another
  // tab), not on every live reload: a reload must never wipe what the user is typing.
  const stored = settings.data;
  const storedStamp = stored ? `${stored.updatedAt}|${stored.lifetime}|${stored.resumeRecommendations}|${stored.allowedTelegramUsers.join(',')}` : null;
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the stored values' stamp on purpose
  useEffect(() => {
    if (!stored) return;
    setLifetime(stored.lifetime);
    setResume(stored.resumeRecommendations);
    setUsers(stored.allowedTelegramUsers.join('\n'));
    setApplied(storedStamp);
  }, [storedStamp]);
  const ready = applied !== null;
  const save = useMutation(trpc.settings.update.mutationOptions({
    onSuccess: (data) => {
      queryClient.setQueryData(trpc.settings.get.queryKey(), data);
      setStatus({ ok: true, text: t('settings.saved') });
    },
    onError: (err) => setStatus({ ok: false, text: errorText(err) }),
  }));

  const submit = () => {
    const list = users.split(/[\s,]+/).map((u) => u.trim()).filter(Boolean);
    if (list.some((u) => !/^[1-9]\d{0,18}$/.test(u))) return setStatus({ ok: false, text: t('settings.usersInvalid') });
    setStatus(null);
    save.mutate({ lifetime, resumeRecommendations: resume, allowedTelegramUsers: list });
  };

  return (
    <>
      <h1 className="page-title">{t('settings.title')}</h1>
      <form className="card stack" aria-busy={settings.isPending} onSubmit={(e) => { e.preventDefault(); submit(); }}>
        <fieldset className="radios" disabled={!ready}>
          <legend>{t('settings.lifetime')}</legend>
          {LIFETIMES.map((l) => (
            <label key={l} className="check">
              <input type="radio" name="lifetime" value={l} checked={lifetime === l} onChange={() => setLifetime(l)} />
              {l === 'never' ? t('settings.lifetime.never') : t('settings.lifetime.hours', { hours: l.slice(0, -1) })}
            </label>
          ))}
          <p className="muted small">{t('settings.lifetimeHelp')}</p>
        </fieldset>
        <div>
          <label className="check">
            <input type="checkbox" checked={resume} onChange={(e) => setResume(e.target.checked)} disabled={!ready} />
            {t('settings.resume')}
          </label>
          <p className="muted small">{t('settings.resumeHelp')}</p>
        </div>
        <div>
          <label htmlFor={`${id}-u`}>{t('settings.users')}</label>
          <textarea id={`${id}-u`} rows={3} value={users} onChange={(e) => setUsers(e.target.value)} className="mono" disabled={!ready} />
          <p className="muted small">{t('settings.usersHelp')}</p>
        </div>
        <div className="actions">
          {status && <span role={status.ok ? 'status' : 'alert'} className={`${status.ok ? 'ok-text' : 'error'} grow`} data-testid="settings-status">{status.text}</span>}
          <button type="submit" className="btn btn-primary" disabled={save.isPending || !ready}>{t('settings.save')}</button>
        </div>
      </form>
      <h2 className="page-title">{t('settings.executors')}</h2>
      <div className="grid">{nodes.data?.nodes.map((n) => <NodeCard key={n.id} node={n} />)}</div>
    </>
  );
}
