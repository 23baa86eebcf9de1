'use client';
import { ANSWERED_EVENT } from './push/session-push.tsx';
import { OPEN_PROMPT_STATES, promptAlwaysAllow } from '@bria/core/domain';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { PromptDetail } from './prompt-detail.tsx';
import { PromptQuestion } from './prompt-question.tsx';
import { codexShellName, deadlineText, promptStatusText, questionsOf } from './prompt-text.ts';
import { useNow, When } from './session-bits.tsx';
import { useTRPC } from './trpc.ts';
import type { PromptItem } from './types.ts';
import { useErrorText } from './use-error-text.ts';

type Decision = 'allow' | 'deny' | 'always_allow' | 'at_computer';
const OPEN: ReadonlySet<PromptItem['state']> = new Set(OPEN_PROMPT_STATES);
const FRESH_MS = 5 * 60_000;

/**
 * The CLI's permission requests and questions (sessions.prompts, reloaded by the live change feed):
 * each open one as a card the user answers here, the last few ended ones below with who answered
 * what. The first answer wins from whichever front end; a card answered elsewhere says so.
 */
export function PromptPanel({ prompts, executor }: { prompts: readonly PromptItem[]; executor?: 'claude' | 'codex' }) {
  const { t } = useI18n();
  const now = useNow();
  // The newest ended request stays in view for a while, shortened to its outcome, so an answer is
  // seen to land (also one given elsewhere). A start dialog that is over is not: the session has
  // moved on (the CLI started, or another start asked again), so it goes to the history at once.
  const fresh = (p: PromptItem) => Math.max(now, Date.now()) - Date.parse(p.resolvedAt ?? p.answeredAt ?? p.receivedAt) < FRESH_MS;
  const newestEnded = prompts.find((x) => !OPEN.has(x.state));
  const keep = (p: PromptItem) => OPEN.has(p.state) || (p === newestEnded && p.kind !== 'dialog' && fresh(p));
  // Open ones last, right above the composer: an outcome line never pushes a new question away.
  const shown = [...prompts.filter((p) => keep(p) && !OPEN.has(p.state)), ...prompts.filter((p) => OPEN.has(p.state))];
  const earlier = prompts.filter((p) => !keep(p));
  if (prompts.length === 0) return null;
  return (
    <>
      {/* The history first: what waits for an answer is the last thing above the composer. */}
      {earlier.length > 0 && (
        <details className="block" data-testid="prompt-history">
          <summary>{t('prompt.recent')}</summary>
          {earlier.map((p) => (
            <PromptCard key={p.id} prompt={p} executor={executor} />
          ))}
        </details>
      )}
      {shown.length > 0 && (
        // One list keyed by id: a card keeps its own notice when its prompt moves on.
        <section aria-labelledby="prompt-title" className="block prompts" data-testid="prompt-panel">
          {shown.some((p) => p.state === 'pending') && <h2 id="prompt-title">{t('prompt.title')}</h2>}
          {shown.map((p) => (
            <PromptCard key={p.id} prompt={p} executor={executor} pinned />
          ))}
        </section>
      )}
    </>
  );
}

function PromptCard({ prompt: p, executor, pinned = false }: { prompt: PromptItem; executor?: 'claude' | 'codex' | undefined; pinned?: boolean }) {
  const { t, locale } = useI18n();
  const now = useNow();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const errorText = useErrorText();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  // The outcome of this page's own press: shown until the live state says more.
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const answer = useMutation(
    trpc.sessions.answerPrompt.mutationOptions({
      onSuccess: (r) => {
        const status = promptStatusText(r.prompt, t);
        setResult(r.kind === 'answered' ? null : { ok: false, text: t(`prompt.result.${r.kind}`, { status }) });
        // The first answer here may offer push on this device (PushOffer, once per browser).
        if (r.kind === 'answered' && p.kind === 'tool') window.dispatchEvent(new Event(ANSWERED_EVENT));
        void queryClient.invalidateQueries(trpc.sessions.prompts.queryFilter({ sessionId: p.sessionId }));
      },
      onError: (err) => setResult({ ok: false, text: errorText(err) }),
    }),
  );
  const send = (decision: Decision, extra: { message?: string; answers?: Record<string, string | string[]> } = {}) => {
    setResult(null);
    answer.mutate({ promptId: p.id, decision, ...extra });
  };
  const pending = p.state === 'pending';
  // A question whose input this page cannot read as options (a shape not seen yet) is shown as it
  // came and can only be declined here; the computer still shows it in full.
  const asksOptions = p.kind === 'question' && questionsOf(p.toolInput).length > 0;
  const always = promptAlwaysAllow(p);
  const busy = answer.isPending;

  // Once it no longer waits, the card is its outcome: the request's body is in the history and the timeline.
  const full = OPEN.has(p.state) || !pinned;
  const shell = p.kind === 'tool' ? codexShellName(executor, p.toolName) : null;
  return (
    <article className={`card prompt prompt-${p.state}${full ? '' : ' prompt-outcome'}`} data-testid="prompt" data-prompt-id={p.id} data-state={p.state}>
      <header className="tl-head">
        <strong data-testid="prompt-title">
          {p.kind === 'question'
            ? t('prompt.question')
            : p.kind === 'dialog'
              ? t('prompt.dialog', { folder: String(p.toolInput.folder ?? '?') })
              : shell
                ? t('prompt.shell')
                : t('prompt.tool', { tool: p.toolName })}
        </strong>
        {shell && (
          <span className="muted small" data-testid="prompt-tool-name">
            {t('prompt.toolAs', { executor: t('executor.codex'), tool: shell })}
          </span>
        )}
        <span className="muted small">
          <When iso={p.receivedAt} locale={locale} />
        </span>
      </header>
      {full && p.kind === 'dialog' && (
        <pre className="command small" data-testid="prompt-dialog-text">
          {String(p.toolInput.text ?? '')}
        </pre>
      )}
      {full && p.kind === 'tool' && <PromptDetail prompt={p} />}
      {full && p.kind === 'question' && !asksOptions && <PromptDetail prompt={p} />}
      {pending && p.kind === 'dialog' && (
        <div className="actions actions-start">
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => send('allow')}>
            {t('prompt.dialogTrust')}
          </button>
          <button type="button" className="btn btn-danger" disabled={busy} onClick={() => send('deny')}>
            {t('prompt.dialogCancel')}
          </button>
        </div>
      )}
      {pending && asksOptions && <PromptQuestion prompt={p} busy={busy} onSend={(answers) => send('allow', { answers })} />}
      {pending && !asksOptions && p.kind !== 'dialog' && (
        <div className="prompt-actions">
          <div className="actions actions-start">
            {p.kind === 'tool' && (
              <button type="button" className="btn btn-primary" disabled={busy} onClick={() => send('allow')}>
                {t('prompt.allow')}
              </button>
            )}
            {/* The button names the exact rule it adds; none where no rule is safe (core's promptAlwaysAllow). */}
            {p.kind === 'tool' && always && (
              <button type="button" className="btn" disabled={busy} onClick={() => send('always_allow')}>
                {t('prompt.alwaysCommand', { command: always.label.command })}
              </button>
            )}
            {/* Codex shows its own dialog only once the hook has let go. */}
            {executor === 'codex' && p.kind === 'tool' && (
              <button type="button" className="btn" disabled={busy} onClick={() => send('at_computer')}>
                {t('prompt.atComputer')}
              </button>
            )}
            <button type="button" className="btn btn-danger" disabled={busy} onClick={() => send('deny', reason.trim() ? { message: reason.trim() } : {})}>
              {t('prompt.deny')}
            </button>
          </div>
          <label htmlFor={reasonId} className="small">
            {t('prompt.reason')}
          </label>
          <input id={reasonId} type="text" maxLength={4000} value={reason} onChange={(e) => setReason(e.target.value)} data-testid="prompt-reason" />
        </div>
      )}
      {pending && busy && (
        <p className="small" role="status" data-testid="prompt-sending">
          {t('prompt.sending')}
        </p>
      )}
      {/* A start dialog has no deadline (it waits as long as the CLI shows it); a hook's is its bound, with the day when not today. */}
      {pending && (
        <p className="muted small" data-testid="prompt-deadline">
          {p.kind === 'dialog' ? t('prompt.dialogWaits') : t('prompt.expires', { time: deadlineText(p.expiresAt, locale, Math.max(now, Date.now())) })}
        </p>
      )}
      {!pending && (
        <p className="small" role="status" data-testid="prompt-status">
          {promptStatusText(p, t)}
        </p>
      )}
      {result && (
        <p role="alert" className="error small" data-testid="prompt-result">
          {result.text}
        </p>
      )}
    </article>
  );
}
