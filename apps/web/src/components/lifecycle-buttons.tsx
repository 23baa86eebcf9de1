'use client';
import { useMutation } from '@tanstack/react-query';
import { AdoptButton } from './adopt-button.tsx';
import { CloseWithWorktree } from './close-worktree.tsx';
import { useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { InlineConfirm } from './inline-confirm.tsx';
import { useTRPC } from './trpc.ts';
import { lifecycleNoticeCurrent } from './page-notices.ts';
import type { SessionItem } from './types.ts';
import { useErrorText } from './use-error-text.ts';
import { waitingText } from './waiting-text.ts';

/**
 * Stop while work runs, Close when idle (after a confirmation), Resume when archived — the bot's
 * card rules. The services decide; the version the page shows goes along, so a press on an
 * outdated page is refused as stale and explained.
 */
export function LifecycleButtons({
  session,
  dialog = false,
  nodeOnline,
  nodeName,
  part = 'all',
  onResumed,
}: {
  session: SessionItem;
  dialog?: boolean;
  nodeOnline?: boolean;
  nodeName?: string;
  /**
   * `stop`: only Stop (the session page keeps it in the sticky bar by the message box, in reach
   * however long the conversation); `rest`: everything else (the page's head).
   */
  part?: 'all' | 'stop' | 'rest';
  /** Called once a Resume was accepted (the page then follows the newest turn again). */
  onResumed?: () => void;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const errorText = useErrorText();
  // Each notice is kept with the session version it is about and hidden once the session moved on.
  const [message, setMessage] = useState<{ ok: boolean; text: string; version: number } | null>(null);
  const opts = {
    onSuccess: (r: { version: number }) => setMessage({ ok: true, text: t('session.done'), version: r.version }),
    onError: (err: unknown) => setMessage({ ok: false, text: errorText(err), version: session.version }),
  };
  const stop = useMutation(trpc.sessions.stop.mutationOptions(opts));
  const close = useMutation(trpc.sessions.close.mutationOptions(opts));
  const resume = useMutation(
    trpc.sessions.resume.mutationOptions({
      ...opts,
      onSuccess: (r: { version: number }) => {
        opts.onSuccess(r);
        onResumed?.();
      },
    }),
  );
  const takeOver = useMutation(trpc.sessions.continueHere.mutationOptions(opts));
  const compact = useMutation(
    trpc.sessions.compact.mutationOptions({
      onSuccess: () => setMessage({ ok: true, text: t('session.compactAsked'), version: session.version }),
      onError: (err: unknown) => setMessage({ ok: false, text: errorText(err), version: session.version }),
    }),
  );
  const busy = stop.isPending || close.isPending || resume.isPending || compact.isPending || takeOver.isPending;
  const input = { sessionId: session.id, version: session.version };
  const s = session.state;
  const waiting = waitingText({ state: s, resumeState: session.resumeState, dialog, ...(nodeOnline === undefined ? {} : { nodeOnline }) });

  const stopButton = (
    <button
      type="button"
      className="btn btn-danger"
      disabled={busy}
      title={part === 'stop' ? t('session.stopHint') : undefined}
      onClick={() => {
        setMessage(null);
        stop.mutate(input);
      }}
    >
      {t('session.stop')}
    </button>
  );
  const notice = (
    <>
      {/* "Requesting…" while a press is on its way; it ends as "Requested." or the service's refusal. */}
      {busy && (
        <p role="status" className="muted small" data-testid="lifecycle-message">
          {t('session.requesting')}
        </p>
      )}
      {!busy && message && lifecycleNoticeCurrent(message, session) && (
        <p role={message.ok ? 'status' : 'alert'} className={message.ok ? 'ok-text' : 'error'} data-testid="lifecycle-message">
          {message.text}
        </p>
      )}
    </>
  );
  if (part === 'stop')
    return s === 'Running' ? (
      <div className="lifecycle lifecycle-bar" data-testid="lifecycle-stop">
        {stopButton}
        {notice}
      </div>
    ) : null;

  return (
    <div className="lifecycle" data-testid="lifecycle">
      {s === 'Running' && part === 'all' && (
        <div>
          {stopButton}
          <p className="muted small">{t('session.stopHint')}</p>
        </div>
      )}
      {session.worktree && <CloseWithWorktree session={session} worktree={session.worktree} disabled={busy} />}
      {s === 'Ready' && !(session.worktree && !session.worktree.removedAt) && (
        <InlineConfirm
          label={t('session.close')}
          question={t('session.closeConfirm')}
          confirmLabel={t('button.closeConfirm')}
          disabled={busy}
          onConfirm={() => {
            setMessage(null);
            close.mutate(input);
          }}
          hint={<p className="muted small">{t('session.closeHint')}</p>}
        />
      )}
      {s === 'Ready' && (
        <div>
          <button
            type="button"
            className="btn"
            disabled={busy}
            onClick={() => {
              setMessage(null);
              compact.mutate({ sessionId: session.id });
            }}
            data-testid="compact"
          >
            {t('session.compact')}
          </button>
          <p className="muted small">{t('session.compactHint')}</p>
        </div>
      )}
      {session.desk && (
        <DeskPanel
          desk={session.desk}
          node={nodeName ?? ''}
          busy={busy}
          closed={s === 'Archived' || s === 'ResumeFailed'}
          onContinue={(pid) => {
            setMessage(null);
            takeOver.mutate({ sessionId: session.id, pid });
          }}
        />
      )}
      {session.desk && <AdoptButton session={session} />}
      {session.attachCommand && !session.desk && (
        <div data-testid="attach-command">
          <p className="small">
            {t('desk.attach', { command: '' })}
            <code className="mono">{session.attachCommand}</code>
          </p>
          <p className="muted small">{t('desk.attachHint')}</p>
        </div>
      )}
      {s === 'Archived' && !session.desk && (
        <div>
          <button
            type="button"
            className="btn btn-primary"
            disabled={busy}
            onClick={() => {
              setMessage(null);
              resume.mutate(input);
            }}
          >
            {t('session.resume')}
          </button>
          <p className="muted small">{t('session.resumeHint')}</p>
        </div>
      )}
      {waiting && (
        <p className="muted small" data-testid="waiting-for">
          {t(waiting.key, waiting.vars)}
        </p>
      )}
      {notice}
    </div>
  );
}

/** A session whose CLI runs in a terminal at its computer: what runs there, and "Continue here" after a confirmation. */
function DeskPanel({
  desk,
  node,
  busy,
  closed,
  onContinue,
}: {
  desk: NonNullable<SessionItem['desk']>;
  node: string;
  busy: boolean;
  closed: boolean;
  onContinue: (pid: number) => void;
}) {
  const { t } = useI18n();
  const since = desk.since ? t('desk.since', { time: new Date(desk.since).toLocaleString() }) : '';
  return (
    <div data-testid="desk-panel">
      <p role="status" className="small" data-testid="desk-running">
        {t('desk.running', { node, pid: desk.pid ?? '?', since })}
      </p>
      {desk.command && (
        <p className="muted small mono wrap-anywhere" data-testid="desk-command">
          {t('desk.command', { command: desk.command })}
        </p>
      )}
      {desk.handoff === 'taking_over' && (
        <p role="status" className="small" data-testid="desk-taking-over">
          {t('desk.takingOver')}
        </p>
      )}
      {/* An open Bria session whose CLI was resumed by hand recovers by itself once that CLI ends (docs/handoff.md). */}
      {desk.handoff === 'desk' && desk.pid !== null && closed && (
        <InlineConfirm
          label={t('desk.continue')}
          question={t('desk.continueConfirm')}
          confirmLabel={t('desk.continueButton')}
          disabled={busy}
          className="btn btn-primary"
          testId="continue-here"
          onConfirm={() => onContinue(desk.pid!)}
          hint={<p className="muted small">{t('desk.continueHint')}</p>}
        />
      )}
    </div>
  );
}
