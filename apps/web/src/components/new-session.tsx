'use client';
import { branchFromTitle, branchNameRefusal, isAbsoluteFolder } from '@bria/core/domain';
import { useMutation, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useDeferredValue, useId, useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { ModelInput, ModePicker } from './session-choices.tsx';
import { sessionTitle, When } from './session-bits.tsx';
import { useTRPC } from './trpc.ts';
import type { Executor } from './types.ts';
import { useErrorText } from './use-error-text.ts';

/**
 * Node (from the URL) → agent (picked when only one is enabled; disabled ones not offered) →
 * folder → resume suggestions (only when the setting is on) → created, then its page (Starting).
 */
export function NewSession({ nodeId }: { nodeId: string }) {
  const { t, locale } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const errorText = useErrorText();
  const id = useId();
  const [picked, setPicked] = useState<Executor | null>(null);
  const [folder, setFolder] = useState('');
  // null = the node's default for the chosen executor, preselected.
  const [mode, setMode] = useState<string | null>(null);
  const [model, setModel] = useState('');
  const [error, setError] = useState<string | null>(null);
  // "In its own worktree": the branch follows the title until the user edits it.
  const [inWorktree, setInWorktree] = useState(false);
  const [title, setTitle] = useState('');
  const [branchEdited, setBranchEdited] = useState<string | null>(null);
  const [fallback] = useState(() => Math.random().toString(36).slice(2, 8));
  const branch = branchEdited ?? branchFromTitle(title, fallback);
  const opts = useQuery(trpc.sessions.newSessionOptions.queryOptions({ nodeId, ...(picked ? { executor: picked } : {}) }));
  // Offered: enabled and installed there; an enabled CLI the node's agent could not run is named with that reason.
  const missing = (opts.data?.node.enabledExecutors ?? []).filter((x) => opts.data?.node.missingExecutors.includes(x));
  const enabled = (opts.data?.node.enabledExecutors ?? []).filter((x) => !missing.includes(x));
  const executor = enabled.length === 1 ? enabled[0] : picked && enabled.includes(picked) ? picked : null;
  const cleanFolder = useDeferredValue(folder.trim());
  const folderOk = isAbsoluteFolder(cleanFolder);
  const recs = useQuery(
    trpc.sessions.resumeRecommendations.queryOptions(
      { nodeId, executor: executor ?? 'claude', folder: cleanFolder || '/' },
      { enabled: executor !== null && folderOk },
    ),
  );
  const go = { onSuccess: (s: { id: string }) => router.push(`/sessions/${s.id}`), onError: (err: unknown) => setError(errorText(err)) };
  const create = useMutation(trpc.sessions.create.mutationOptions(go));
  const resume = useMutation(trpc.sessions.resume.mutationOptions(go));
  const busy = create.isPending || resume.isPending;

  if (opts.isError)
    return (
      <p role="alert" className="error">
        {errorText(opts.error)}
      </p>
    );
  const node = opts.data?.node;
  const chosenMode = executor && node ? (mode ?? node.defaultModes[executor]) : null;
  return (
    <>
      <p className="crumbs">
        <Link href={`/nodes/${nodeId}`}>← {t('session.back', { node: node?.name ?? '…' })}</Link>
      </p>
      <h1>{t('new.title', { node: node?.name ?? '…' })}</h1>
      {node && !node.online && (
        <p className="notice notice-warn" role="alert">
          {t('new.offline')}
        </p>
      )}
      <form
        className="card stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (!executor) return;
          if (!folderOk) return setError(t('new.folderInvalid'));
          const badBranch = inWorktree ? branchNameRefusal(branch.trim()) : null;
          if (badBranch) return setError(badBranch);
          setError(null);
          create.mutate({
            nodeId,
            executor,
            folder: cleanFolder,
            permissionMode: chosenMode ?? undefined,
            model: model.trim(),
            ...(title.trim() ? { title: title.trim() } : {}),
            ...(inWorktree ? { worktree: { branch: branch.trim() } } : {}),
          });
        }}
      >
        <fieldset className="executors" disabled={busy}>
          <legend>{t('new.executor')}</legend>
          {enabled.length === 0 && missing.length === 0 && opts.data && <p className="error">{t('new.noExecutor')}</p>}
          {missing.map((x) => (
            <p key={x} className="muted small" data-testid="executor-missing">
              {t(`sessions.executor_missing.${x}`)}
            </p>
          ))}
          {enabled.length === 1 && enabled[0] && <p data-testid="executor-auto">{t('new.executorAuto', { executor: t(`executor.${enabled[0]}`) })}</p>}
          {enabled.length > 1 &&
            enabled.map((x) => (
              <label key={x} className="check">
                <input
                  type="radio"
                  name="executor"
                  value={x}
                  checked={executor === x}
                  onChange={() => {
                    setPicked(x);
                    setMode(null);
                  }}
                />
                {t(`executor.${x}`)}
              </label>
            ))}
        </fieldset>
        {executor && node && chosenMode && (
          <>
            <ModePicker executor={executor} value={chosenMode} onChange={setMode} unavailable={node.unavailableModes} disabled={busy} />
            <ModelInput executor={executor} value={model} onChange={setModel} disabled={busy} />
          </>
        )}
        <div>
          <label htmlFor={`${id}-f`}>{t('new.folder')}</label>
          <input
            id={`${id}-f`}
            value={folder}
            placeholder={t('new.folderPlaceholder')}
            autoComplete="off"
            spellCheck={false}
            className="mono"
            onChange={(e) => {
              setFolder(e.target.value);
              setError(null);
            }}
            list={`${id}-recent`}
            aria-invalid={folder.trim() !== '' && !isAbsoluteFolder(folder.trim())}
          />
          {opts.data && opts.data.recentFolders.length > 0 && (
            <div className="chips">
              <span className="muted small">{t('new.recent')}:</span>
              {opts.data.recentFolders.map((f) => (
                <button key={f} type="button" className="chip mono" onClick={() => setFolder(f)}>
                  {f}
                </button>
              ))}
            </div>
          )}
        </div>
        <div className="stack worktree-choice">
          <label className="check">
            <input type="checkbox" checked={inWorktree} onChange={(e) => setInWorktree(e.target.checked)} disabled={busy} data-testid="new-worktree" />
            {t('new.worktree')}
          </label>
          {inWorktree && (
            <>
              <div>
                <label htmlFor={`${id}-t`}>{t('new.sessionTitle')}</label>
                <input id={`${id}-t`} value={title} maxLength={200} onChange={(e) => setTitle(e.target.value)} disabled={busy} data-testid="new-title" />
              </div>
              <div>
                <label htmlFor={`${id}-b`}>{t('new.branch')}</label>
                <input
                  id={`${id}-b`}
                  className="mono"
                  value={branch}
                  maxLength={100}
                  spellCheck={false}
                  autoComplete="off"
                  onChange={(e) => setBranchEdited(e.target.value)}
                  disabled={busy}
                  data-testid="new-branch"
                  aria-invalid={branchNameRefusal(branch.trim()) !== null}
                />
              </div>
            </>
          )}
        </div>
        {recs.data?.enabled && (
          <section aria-labelledby={`${id}-recs`} className="recs" data-testid="resume-suggestions">
            <h2 id={`${id}-recs`}>{t('new.suggestions')}</h2>
            {recs.data.items.length === 0 ? (
              <p className="muted small">{t('new.suggestionsNone')}</p>
            ) : (
              <ul className="rows">
                {recs.data.items.map((s) => (
                  <li key={s.id} className="row">
                    <div className="row-main">
                      <span className="row-title">{sessionTitle(s, t)}</span>
                      <span className="muted small">
                        <When iso={s.lastActivityAt ?? s.archivedAt} locale={locale} />
                      </span>
                    </div>
                    <button type="button" className="btn btn-small" disabled={busy} onClick={() => resume.mutate({ sessionId: s.id, version: s.version })}>
                      {t('new.resumeThis')}
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </section>
        )}
        {error && (
          <p role="alert" className="error" data-testid="new-error">
            {error}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="btn btn-primary" disabled={busy || !executor || !node?.online}>
            {t('new.startNew')}
          </button>
        </div>
      </form>
    </>
  );
}
