'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { usePathname, useRouter } from 'next/navigation';
import { useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { InlineConfirm } from './inline-confirm.tsx';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';

/**
 * A computer's own actions: a new token when its token was revoked or lost (the command is shown
 * once, as "Add a computer" does), and removing it (asked in place; its closed sessions stay in the
 * archive; refused with the service's sentence while it has open sessions).
 */
export function NodeActions({ nodeId }: { nodeId: string }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const errorText = useErrorText();
  const router = useRouter();
  const path = usePathname();
  const [error, setError] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries(trpc.nodes.list.pathFilter());
  const issue = useMutation(trpc.nodes.issueToken.mutationOptions({ onSuccess: refresh, onError: (err) => setError(errorText(err)) }));
  const remove = useMutation(
    trpc.nodes.remove.mutationOptions({
      onSuccess: () => {
        void refresh();
        if (path.startsWith(`/nodes/${nodeId}`)) router.push('/');
      },
      onError: (err) => setError(errorText(err)),
    }),
  );
  const issued = issue.data;

  return (
    <div className="node-actions" data-testid="node-actions">
      {issued ? (
        <div data-testid="issued-token">
          <p role="status" className="warning">
            {t('nodes.add.onceWarning')}
          </p>
          {issued.revokedTokens > 0 && (
            <p role="status" data-testid="issued-replaced">
              {t('nodes.issueToken.replaced', { count: issued.revokedTokens })}
            </p>
          )}
          <p>{t('nodes.add.runThis')}</p>
          <pre className="command" data-testid="issued-command">
            <code>{issued.command}</code>
          </pre>
          <div className="actions">
            <button type="button" className="btn btn-primary btn-small" onClick={() => issue.reset()}>
              {t('nodes.add.done')}
            </button>
          </div>
        </div>
      ) : (
        <div className="actions actions-start">
          <button
            type="button"
            className="btn btn-small"
            disabled={issue.isPending}
            onClick={() => {
              setError(null);
              issue.mutate({ nodeId });
            }}
          >
            {t('nodes.issueToken')}
          </button>
          <InlineConfirm
            label={t('nodes.remove')}
            question={t('nodes.remove.confirm')}
            confirmLabel={t('nodes.remove.yes')}
            className="btn btn-danger btn-small"
            disabled={remove.isPending}
            onConfirm={() => {
              setError(null);
              remove.mutate({ nodeId });
            }}
            testId="remove-computer"
          />
        </div>
      )}
      {error && (
        <p role="alert" className="error" data-testid="node-action-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** Ends every dashboard sign-in, this one included, then shows the signed-out page. */
export function SignOutEverywhere() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const errorText = useErrorText();
  const [error, setError] = useState<string | null>(null);
  const out = useMutation(
    trpc.auth.signOutEverywhere.mutationOptions({
      onSuccess: () => window.location.assign('/signin'),
      onError: (err) => setError(errorText(err)),
    }),
  );
  return (
    <section className="card stack block" aria-labelledby="everywhere-title">
      <h2 id="everywhere-title">{t('settings.everywhere.title')}</h2>
      <p className="muted small">{t('settings.everywhere.help')}</p>
      <InlineConfirm
        label={t('settings.everywhere.button')}
        question={t('settings.everywhere.confirm')}
        confirmLabel={t('settings.everywhere.yes')}
        className="btn btn-danger"
        disabled={out.isPending}
        onConfirm={() => out.mutate()}
        testId="sign-out-everywhere"
      />
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  );
}
