'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { AnyKey } from '../i18n/catalog.ts';
import { isMessageKey } from '../i18n/catalog.ts';
import { DiffView } from './diff-view.tsx';
import { useI18n } from './i18n-context.tsx';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';

type Worktree = { path: string; branch: string; baseBranch: string; removedAt: string | null } | null;
type Refusal = { ok: false; code: string; message: string; files: string[] };

/**
 * The session's changes (docs/worktrees.md), read on its computer only while unfolded: files with
 * +/−, each file's diff, untracked files, then commit, push and (for a session in its own worktree)
 * finish. A refusal shows git's own words, or why the hub refused (a turn in flight…).
 */
export function ChangesDetails({ sessionId, worktree, open }: { sessionId: string; worktree: Worktree; open: boolean }) {
  const { t } = useI18n();
  const [shown, setShown] = useState(false);
  return (
    <details className="card changes" data-testid="changes" onToggle={(e) => setShown(e.currentTarget.open)}>
      <summary>{t('changes.title')}</summary>
      {worktree && (
        <p className="muted small" data-testid="worktree-line">
          {t(worktree.removedAt ? 'changes.worktreeRemoved' : 'changes.worktree', { branch: worktree.branch, path: worktree.path })}
        </p>
      )}
      {shown && <ChangesPanel sessionId={sessionId} worktree={worktree} open={open} />}
    </details>
  );
}

function RefusalBox({ r }: { r: Refusal }) {
  const { t } = useI18n();
  const key = `git.${r.code}`;
  return (
    <div className="warning" role="alert" data-testid="git-refusal" data-code={r.code}>
      <strong>{t('changes.refused')}</strong>
      <pre className="small">{isMessageKey(key) ? t(key as AnyKey) : r.message}</pre>
    </div>
  );
}

function ChangesPanel({ sessionId, worktree, open }: { sessionId: string; worktree: Worktree; open: boolean }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const qc = useQueryClient();
  const errorText = useErrorText();
  const id = useId();
  const changes = useQuery(trpc.sessions.changes.queryOptions({ sessionId }, { retry: false, staleTime: Number.POSITIVE_INFINITY }));
  const [message, setMessage] = useState('');
  const [chosenOnly, setChosenOnly] = useState(false);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [outcome, setOutcome] = useState<{ kind: 'ok'; text: string; link?: string | null } | { kind: 'refused'; r: Refusal } | null>(null);
  const [merge, setMerge] = useState<'ff' | 'merge' | 'none'>('ff');
  // Removing the worktree of an open session is refused (its CLI runs there): Keep is the default then.
  const [remove, setRemove] = useState(!open);
  const [loaded, setLoaded] = useState<Record<string, string>>({});
  const reload = () => {
    setLoaded({});
    void changes.refetch();
  };
  const refreshSession = () => void qc.invalidateQueries({ queryKey: trpc.sessions.get.queryKey({ sessionId }) });
  const onError = (err: unknown) => setOutcome({ kind: 'refused', r: { ok: false, code: 'failed', message: errorText(err), files: [] } });
  const commit = useMutation(
    trpc.sessions.commit.mutationOptions({
      onSuccess: (r) => {
        if (!r.ok) return setOutcome({ kind: 'refused', r });
        setOutcome({ kind: 'ok', text: t('changes.committed', { summary: r.summary }) });
        setMessage('');
        setDrafted(false);
        setChosen(new Set());
        reload();
      },
      onError,
    }),
  );
  const push = useMutation(
    trpc.sessions.push.mutationOptions({
      onSuccess: (r) =>
        setOutcome(
          r.ok
            ? { kind: 'ok', text: `${t('changes.pushed', { branch: r.branch, remote: r.remote })}\n${r.output}`, link: r.compareUrl }
            : { kind: 'refused', r },
        ),
      onError,
    }),
  );
  const finish = useMutation(
    trpc.sessions.finish.mutationOptions({
      onSuccess: (r) => {
        if (!r.ok) return setOutcome({ kind: 'refused', r });
        setOutcome({
          kind: 'ok',
          text: [r.merged ? t('changes.merged', { commit: r.merged.slice(0, 7) }) : '', r.removed ? t('changes.removed') : '', r.output]
            .filter(Boolean)
            .join('\n'),
        });
        refreshSession();
        reload();
      },
      onError,
    }),
  );
  const [drafted, setDrafted] = useState(false);
  const draft = useMutation(
    trpc.sessions.draftMessage.mutationOptions({
      onSuccess: (r) => {
        if (!r.ok) return setOutcome({ kind: 'refused', r });
        setMessage(r.message);
        setDrafted(true);
      },
      onError,
    }),
  );
  const busy = commit.isPending || push.isPending || finish.isPending || draft.isPending;
  const finishable = worktree !== null && worktree.removedAt === null;

  if (changes.isPending) return <p className="muted small">{t('changes.loading')}</p>;
  if (changes.isError) return <p className="error">{errorText(changes.error)}</p>;
  const c = changes.data;
  const toggle = (p: string) =>
    setChosen((s) => {
      const n = new Set(s);
      if (n.has(p)) n.delete(p);
      else n.add(p);
      return n;
    });
  return (
    <div className="stack changes-body">
      <div className="actions actions-start">
        <button type="button" className="btn btn-small" onClick={reload} disabled={changes.isFetching} data-testid="changes-reload">
          {t('changes.reload')}
        </button>
      </div>
      {!c.ok ? (
        <RefusalBox r={c} />
      ) : (
        <>
          <p className="muted small" data-testid="changes-base">
            {c.baseKind === 'branch_point'
              ? t('changes.againstBranchPoint', { base: worktree?.baseBranch ?? '', commit: c.base.slice(0, 7) })
              : c.baseKind === 'session_start'
                ? t('changes.againstStart', { commit: c.base.slice(0, 7) })
                : t('changes.againstHead', { commit: c.base.slice(0, 7) })}
          </p>
          {c.files.length === 0 && c.untracked.length === 0 && <p data-testid="changes-none">{t('changes.none')}</p>}
          <ul className="rows changes-files" data-testid="changes-files">
            {c.files.map((f) => (
              <li key={f.path} className="changes-file" data-testid="changes-file" data-path={f.path}>
                {chosenOnly && (
                  <label className="check">
                    <input type="checkbox" checked={chosen.has(f.path)} onChange={() => toggle(f.path)} aria-label={t('changes.choose', { path: f.path })} />
                  </label>
                )}
                <DiffView
                  path={f.path}
                  added={f.added}
                  removed={f.removed}
                  diff={loaded[f.path] ?? f.diff}
                  clipped={f.clipped && loaded[f.path] === undefined}
                  onLoad={async () => {
                    const one = await qc.fetchQuery(trpc.sessions.changes.queryOptions({ sessionId, paths: [f.path] }));
                    const d = one.ok ? one.files.find((x) => x.path === f.path)?.diff : null;
                    if (d) setLoaded((l) => ({ ...l, [f.path]: d }));
                  }}
                />
              </li>
            ))}
          </ul>
          {c.untracked.length > 0 && (
            <section aria-labelledby={`${id}-u`}>
              <h3 id={`${id}-u`}>{t('changes.untracked')}</h3>
              <ul className="rows changes-untracked" data-testid="changes-untracked">
                {c.untracked.map((p) => (
                  <li key={p} className="mono small">
                    {chosenOnly && (
                      <label className="check">
                        <input type="checkbox" checked={chosen.has(p)} onChange={() => toggle(p)} aria-label={t('changes.choose', { path: p })} />
                      </label>
                    )}
                    {p}
                  </li>
                ))}
              </ul>
            </section>
          )}
          {c.truncated && <p className="muted small">{t('changes.truncated')}</p>}
          <form
            className="stack"
            data-testid="commit-form"
            onSubmit={(e) => {
              e.preventDefault();
              setOutcome(null);
              commit.mutate({ sessionId, message, ...(chosenOnly ? { paths: [...chosen] } : {}) });
            }}
          >
            <fieldset className="executors" disabled={busy}>
              <legend>{t('changes.stage')}</legend>
              <label className="check">
                <input type="radio" name={`${id}-stage`} checked={!chosenOnly} onChange={() => setChosenOnly(false)} />
                {t('changes.stageAll')}
              </label>
              <label className="check">
                <input type="radio" name={`${id}-stage`} checked={chosenOnly} onChange={() => setChosenOnly(true)} data-testid="stage-chosen" />
                {t('changes.stageChosen')}
              </label>
            </fieldset>
            <div>
              <label htmlFor={`${id}-m`}>{t('changes.commitMessage')}</label>
              <textarea id={`${id}-m`} rows={3} value={message} onChange={(e) => setMessage(e.target.value)} disabled={busy} data-testid="commit-message" />
              {draft.isPending && (
                <p role="status" className="muted small" data-testid="draft-pending">
                  {t('changes.drafting')}
                </p>
              )}
              {drafted && !draft.isPending && (
                <p className="muted small" data-testid="draft-done">
                  {t('changes.drafted')}
                </p>
              )}
            </div>
            <div className="actions actions-start">
              <button
                type="submit"
                className="btn btn-primary"
                disabled={busy || message.trim() === '' || (chosenOnly && chosen.size === 0)}
                data-testid="commit-button"
              >
                {t('changes.commit')}
              </button>
              <button
                type="button"
                className="btn"
                disabled={busy}
                data-testid="draft-button"
                onClick={() => {
                  setOutcome(null);
                  setDrafted(false);
                  draft.mutate({ sessionId });
                }}
              >
                {t('changes.draft')}
              </button>
              <button
                type="button"
                className="btn"
                disabled={busy}
                data-testid="push-button"
                onClick={() => {
                  setOutcome(null);
                  push.mutate({ sessionId });
                }}
              >
                {t('changes.push')}
              </button>
            </div>
          </form>
        </>
      )}
      {finishable && (
        <FinishForm
          busy={busy}
          baseBranch={worktree.baseBranch}
          merge={merge}
          setMerge={setMerge}
          remove={remove}
          setRemove={setRemove}
          onFinish={(force) => {
            setOutcome(null);
            finish.mutate({ sessionId, merge, remove, ...(force ? { force: true } : {}) });
          }}
          uncommitted={outcome?.kind === 'refused' && outcome.r.code === 'uncommitted_work' ? outcome.r.files : null}
        />
      )}
      {outcome?.kind === 'ok' && (
        <div className="notice notice-ok" role="status" data-testid="git-outcome">
          <pre className="small">{outcome.text}</pre>
          {outcome.link && (
            <a href={outcome.link} target="_blank" rel="noreferrer">
              {t('changes.compare')}
            </a>
          )}
        </div>
      )}
      {outcome?.kind === 'refused' && outcome.r.code !== 'uncommitted_work' && <RefusalBox r={outcome.r} />}
    </div>
  );
}

function FinishForm(p: {
  busy: boolean;
  baseBranch: string;
  merge: 'ff' | 'merge' | 'none';
  setMerge: (m: 'ff' | 'merge' | 'none') => void;
  remove: boolean;
  setRemove: (r: boolean) => void;
  onFinish: (force: boolean) => void;
  uncommitted: string[] | null;
}) {
  const { t } = useI18n();
  const id = useId();
  return (
    <section className="stack finish" aria-labelledby={`${id}-f`} data-testid="finish-form">
      <h3 id={`${id}-f`}>{t('changes.finishTitle', { base: p.baseBranch })}</h3>
      <fieldset className="executors" disabled={p.busy}>
        <legend>{t('changes.mergeHow')}</legend>
        {(['ff', 'merge', 'none'] as const).map((m) => (
          <label key={m} className="check">
            <input type="radio" name={`${id}-merge`} checked={p.merge === m} onChange={() => p.setMerge(m)} data-testid={`merge-${m}`} />
            {t(`changes.merge_${m}`)}
          </label>
        ))}
      </fieldset>
      <fieldset className="executors" disabled={p.busy}>
        <legend>{t('changes.worktreeAfter')}</legend>
        <label className="check">
          <input type="radio" name={`${id}-rm`} checked={!p.remove} onChange={() => p.setRemove(false)} data-testid="worktree-keep" />
          {t('changes.keep')}
        </label>
        <label className="check">
          <input type="radio" name={`${id}-rm`} checked={p.remove} onChange={() => p.setRemove(true)} data-testid="worktree-remove" />
          {t('changes.remove')}
        </label>
      </fieldset>
      <div className="actions actions-start">
        <button type="button" className="btn" disabled={p.busy} onClick={() => p.onFinish(false)} data-testid="finish-button">
          {t('changes.finish')}
        </button>
      </div>
      {p.uncommitted && (
        <div className="warning" role="alert" data-testid="uncommitted">
          <strong>{t('changes.uncommitted')}</strong>
          <ul className="mono small">
            {p.uncommitted.map((f) => (
              <li key={f}>{f}</li>
            ))}
          </ul>
          <button type="button" className="btn btn-danger" disabled={p.busy} onClick={() => p.onFinish(true)} data-testid="finish-force">
            {t('changes.forceRemove')}
          </button>
        </div>
      )}
    </section>
  );
}
