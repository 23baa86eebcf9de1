'use client';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import type { AnyKey } from '../i18n/catalog.ts';
import { isMessageKey } from '../i18n/catalog.ts';
import { useI18n } from './i18n-context.tsx';
import { useTRPC } from './trpc.ts';
import type { SessionItem } from './types.ts';
import { useErrorText } from './use-error-text.ts';

type Outcome = { kind: 'removed' } | { kind: 'uncommitted'; files: string[] } | { kind: 'refused'; text: string } | null;

/**
 * Close for a session in its own worktree (docs/worktrees.md): asks Keep worktree (the default) or
 * Remove worktree. Remove runs once the close is done (the hub waits for Archived: the CLI no longer
 * runs there) through Finish's remove path; uncommitted work is listed and removed only after a
 * second press. It stays mounted after the close, so the outcome is shown on the archived page.
 */
export function CloseWithWorktree({
  session,
  worktree,
  disabled,
}: {
  session: SessionItem;
  worktree: { path: string; branch: string; removedAt: string | null };
  disabled: boolean;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const errorText = useErrorText();
  const id = useId();
  const [asking, setAsking] = useState(false);
  const [remove, setRemove] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [closeError, setCloseError] = useState<string | null>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const keepRadio = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (asking) keepRadio.current?.focus();
  }, [asking]);
  const removeWorktree = useMutation(
    trpc.sessions.removeWorktree.mutationOptions({
      onSuccess: (r) => {
        if (r.ok) return setOutcome({ kind: 'removed' });
        if (r.code === 'uncommitted_work') return setOutcome({ kind: 'uncommitted', files: r.files });
        const key = `git.${r.code}`;
        setOutcome({ kind: 'refused', text: isMessageKey(key) ? t(key as AnyKey) : r.message });
      },
      onError: (err) => setOutcome({ kind: 'refused', text: errorText(err) }),
    }),
  );
  const close = useMutation(
    trpc.sessions.close.mutationOptions({
      onSuccess: () => {
        if (remove) removeWorktree.mutate({ sessionId: session.id });
      },
      onError: (err) => setCloseError(errorText(err)),
    }),
  );
  const busy = disabled || close.isPending || removeWorktree.isPending;
  // A removed worktree leaves an ordinary Close (lifecycle-buttons.tsx); this stays to show the outcome.
  const ready = session.state === 'Ready' && worktree.removedAt === null;

  return (
    <div data-testid="close-worktree">
      {ready && !asking && (
        <div>
          <button ref={trigger} type="button" className="btn" disabled={busy} onClick={() => setAsking(true)}>
            {t('session.close')}
          </button>
          <p className="muted small">{t('session.closeHint')}</p>
        </div>
      )}
      {ready && asking && (
        <div
          role="alertdialog"
          aria-labelledby={`${id}-q`}
          className="confirm"
          data-testid="close-dialog"
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              setAsking(false);
            }
          }}
        >
          <p id={`${id}-q`} className="wrap-anywhere">
            {t('closeWt.worktreeQuestion', { path: worktree.path })}
          </p>
          <fieldset className="executors">
            <label className="check">
              <input ref={keepRadio} type="radio" name={`${id}-wt`} checked={!remove} onChange={() => setRemove(false)} data-testid="close-keep" />
              {t('closeWt.keep')}
            </label>
            <label className="check">
              <input type="radio" name={`${id}-wt`} checked={remove} onChange={() => setRemove(true)} data-testid="close-remove" />
              {t('closeWt.remove', { branch: worktree.branch })}
            </label>
          </fieldset>
          <div className="actions actions-start">
            <button
              type="button"
              className="btn btn-danger"
              disabled={busy}
              data-testid="close-confirm"
              onClick={() => {
                setAsking(false);
                setOutcome(null);
                setCloseError(null);
                close.mutate({ sessionId: session.id, version: session.version });
              }}
            >
              {t('button.closeConfirm')}
            </button>
            <button type="button" className="btn" onClick={() => setAsking(false)}>
              {t('button.cancel')}
            </button>
          </div>
        </div>
      )}
      {removeWorktree.isPending && (
        <p role="status" className="muted small" data-testid="close-removing">
          {t('closeWt.removing')}
        </p>
      )}
      {closeError && (
        <p role="alert" className="error">
          {closeError}
        </p>
      )}
      {outcome?.kind === 'removed' && (
        <p role="status" className="ok-text" data-testid="close-removed">
          {t('changes.removed')}
        </p>
      )}
      {outcome?.kind === 'refused' && (
        <p role="alert" className="error" data-testid="close-refused">
          {outcome.text}
        </p>
      )}
      {outcome?.kind === 'uncommitted' && (
        <div className="warning" role="alert" data-testid="close-uncommitted">
          <strong>{t('changes.uncommitted')}</strong>
          <ul className="mono small wrap-anywhere">
            {outcome.files.map((f) => (
              <li key={f}>{f}</li>
            ))}
          </ul>
          <button
            type="button"
            className="btn btn-danger"
            disabled={busy}
            onClick={() => removeWorktree.mutate({ sessionId: session.id, force: true })}
            data-testid="close-force"
          >
            {t('changes.forceRemove')}
          </button>
        </div>
      )}
    </div>
  );
}
