'use client';
import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { useI18n } from '../i18n-context.tsx';
import { sessionTitle } from '../session-bits.tsx';
import { useTRPC } from '../trpc.ts';
import { useErrorText } from '../use-error-text.ts';
import { useOpenSessions } from '../use-open-sessions.ts';

/** Shared text, editable, and the open session it goes to; sent through the queue like any message. */
export function SharePicker({ initialText }: { initialText: string }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const errorText = useErrorText();
  const id = useId();
  const open = useOpenSessions();
  const [text, setText] = useState(initialText);
  const [chosen, setChosen] = useState('');
  // One key per page: pressing Send twice (or a retry after a lost answer) stores the message once.
  const [clientKey] = useState(() => crypto.randomUUID().replaceAll('-', ''));
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const send = useMutation(
    trpc.sessions.sendMessage.mutationOptions({
      onSuccess: (_r, v) => {
        setStatus({ ok: true, text: t('share.sent') });
        router.push(`/sessions/${v.sessionId}`);
      },
      onError: (err) => setStatus({ ok: false, text: errorText(err) }),
    }),
  );
  const sessions = open.sessions.filter((s) => s.acceptsMessages);
  const target = chosen || sessions[0]?.id || '';
  return (
    <>
      <h1 className="page-title">{t('share.title')}</h1>
      <form
        className="card stack"
        data-testid="share-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!target || !text.trim()) return;
          setStatus(null);
          send.mutate({ sessionId: target, text, clientKey });
        }}
      >
        {initialText === '' && <p className="muted small">{t('share.empty')}</p>}
        <label htmlFor={`${id}-t`}>{t('send.label')}</label>
        <textarea id={`${id}-t`} rows={6} value={text} onChange={(e) => setText(e.target.value)} data-testid="share-text" />
        {!open.pending && sessions.length === 0 ? (
          <p className="muted">{t('share.none')}</p>
        ) : (
          <>
            <label htmlFor={`${id}-s`}>{t('share.session')}</label>
            <select id={`${id}-s`} value={target} onChange={(e) => setChosen(e.target.value)} data-testid="share-session">
              {sessions.map((s) => (
                <option key={s.id} value={s.id}>
                  {sessionTitle(s, t)} — {s.nodeName}
                </option>
              ))}
            </select>
          </>
        )}
        <div className="actions">
          {status && (
            <span role={status.ok ? 'status' : 'alert'} className={`${status.ok ? 'ok-text' : 'error'} grow`}>
              {status.text}
            </span>
          )}
          <button type="submit" className="btn btn-primary" disabled={!target || !text.trim() || send.isPending}>
            {t('share.send')}
          </button>
        </div>
      </form>
    </>
  );
}
