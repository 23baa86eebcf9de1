'use client';
import type { AppRouter } from '@bria/core/trpc';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import Link from 'next/link';
import { useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { InlineConfirm } from './inline-confirm.tsx';
import { NodeActions } from './node-actions.tsx';
import { NodeDefaultModes } from './session-choices.tsx';
import { relativeTime, shortDate } from './relative-time.ts';
import { When } from './session-bits.tsx';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';

export type NodeView = inferRouterOutputs<AppRouter>['nodes']['list']['nodes'][number];
const EXECUTORS = ['claude', 'codex'] as const;
const EXECUTOR_LABEL = { claude: 'Claude Code', codex: 'Codex' } as const;

/** `own`: drawn on the computer's own page, which has its sessions and New session already. */
export function NodeCard({ node, own = false }: { node: NodeView; own?: boolean }) {
  const { t, locale } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const errorText = useErrorText();
  const [error, setError] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries(trpc.nodes.list.pathFilter());
  const onError = (err: unknown) => setError(errorText(err));
  const setExecutors = useMutation(trpc.nodes.setExecutors.mutationOptions({ onSuccess: refresh, onError }));
  const revoke = useMutation(trpc.nodes.revokeToken.mutationOptions({ onSuccess: refresh, onError }));
  const headingId = `node-${node.id}`;
  // Ticks only for CLIs the computer's agent reported it can run; nothing before it reported.
  const installed = node.installedExecutors;

  const toggle = (executor: (typeof EXECUTORS)[number], on: boolean) => {
    const next = on ? [...node.enabledExecutors, executor] : node.enabledExecutors.filter((e) => e !== executor);
    if (next.length === 0) return setError(t('nodes.executors.atLeastOne'));
    setError(null);
    setExecutors.mutate({ nodeId: node.id, executors: next });
  };

  return (
    <article className="card node" aria-labelledby={headingId} data-testid="node-card" data-node-name={node.name}>
      <header className="node-head">
        <h3 id={headingId}>{node.name}</h3>
        <span className={`badge ${node.online ? 'badge-online' : 'badge-offline'}`} data-testid="node-status">
          <span className="dot" aria-hidden="true" />
          {node.online ? t('nodes.online') : t('nodes.offline')}
        </span>
      </header>
      {(node.isLocal || node.hostname) && (
        <p className="muted node-sub">{[node.isLocal ? t('nodes.local') : null, node.hostname].filter(Boolean).join(' · ')}</p>
      )}
      <dl className="facts">
        <div>
          <dt>{t('nodes.lastSeen')}</dt>
          <dd>{node.online ? t('time.justNow') : node.lastSeenAt ? <When iso={node.lastSeenAt} locale={locale} /> : t('nodes.never')}</dd>
        </div>
        <div>
          <dt>{t('nodes.agentVersion')}</dt>
          <dd data-testid="agent-version">
            {node.agentVersion ?? t('nodes.unknown')}
            {node.agentOutdated && (
              <span className="badge badge-offline" data-testid="agent-outdated">
                {' '}
                {t('nodes.outdated')}
              </span>
            )}
          </dd>
        </div>
        <div>
          <dt>{t('nodes.openSessions')}</dt>
          <dd data-testid="open-sessions">{node.openSessions}</dd>
        </div>
      </dl>
      {node.remoteAnswersOff && (
        <div className="notice" data-testid="remote-answers-off">
          <p>{t('nodes.remoteAnswersOff', { reason: t(`nodes.remoteAnswersOff.${node.remoteAnswersOff}`) })}</p>
        </div>
      )}
      {node.updateCommand && (
        <div className="notice" data-testid="agent-update">
          <p>{t('nodes.updateHint')}</p>
          <pre className="command small">{node.updateCommand}</pre>
        </div>
      )}
      {!own && (
        <div className="actions actions-start">
          <Link className="btn btn-primary btn-small" href={`/nodes/${node.id}`} data-testid="node-sessions-link">
            {t('nodes.sessionsLink')}
          </Link>
          {node.online && node.enabledExecutors.length > 0 && (
            <Link className="btn btn-small" href={`/nodes/${node.id}/new`}>
              {t('node.newSession')}
            </Link>
          )}
        </div>
      )}
      <fieldset className="executors" disabled={setExecutors.isPending}>
        <legend>{t('nodes.executors')}</legend>
        {installed === null ? (
          <p className="muted small" data-testid="executors-unreported">
            {t('nodes.executors.unreported')}
          </p>
        ) : (
          EXECUTORS.map((e) => (
            <label key={e} className="check" data-testid="executor-choice" data-executor={e} data-installed={installed.includes(e)}>
              <input
                type="checkbox"
                checked={installed.includes(e) && node.enabledExecutors.includes(e)}
                disabled={!installed.includes(e)}
                onChange={(ev) => toggle(e, ev.target.checked)}
              />
              {EXECUTOR_LABEL[e]}
              {!installed.includes(e) && <span className="muted small"> ({t('nodes.executors.notInstalled')})</span>}
              <CliVersion v={node.cliVersions.find((c) => c.executor === e)} />
            </label>
          ))
        )}
      </fieldset>
      <details className="modes">
        <summary>{t('nodes.defaultModes')}</summary>
        <NodeDefaultModes node={node} />
      </details>
      <details className="tokens">
        <summary>
          {t('nodes.tokens')} ({node.tokens.length})
        </summary>
        {node.tokens.length === 0 ? (
          <p className="muted">{t('nodes.tokens.none')}</p>
        ) : (
          <ul>
            {node.tokens.map((tok) => (
              <li key={tok.id}>
                <span className="muted">
                  {t('nodes.token.created', { date: shortDate(tok.createdAt, locale) })}
                  {tok.lastUsedAt ? ` · ${t('nodes.token.lastUsed', { date: relativeTime(tok.lastUsedAt, locale) })}` : ''}
                </span>
                <InlineConfirm
                  label={t('nodes.token.revoke')}
                  question={t('nodes.token.confirmRevoke')}
                  confirmLabel={t('nodes.token.revokeConfirm')}
                  className="btn btn-danger btn-small"
                  disabled={revoke.isPending}
                  onConfirm={() => revoke.mutate({ tokenId: tok.id })}
                />
              </li>
            ))}
          </ul>
        )}
      </details>
      <details className="tokens" data-testid="computer-manage">
        <summary>{t('nodes.manage')}</summary>
        <NodeActions nodeId={node.id} />
      </details>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </article>
  );
}

/** "2.1.197", or "2.1.300 — not verified with this Bria; verified: …" (never a refusal: the CLI still runs). */
function CliVersion({ v }: { v: NodeView['cliVersions'][number] | undefined }) {
  const { t } = useI18n();
  if (!v) return null;
  return (
    <span className="small" data-testid="cli-version" data-verified={v.verified}>
      {' '}
      {v.version}
      {!v.verified && (
        <span className="muted" data-testid="cli-unverified">
          {' — '}
          {t('nodes.executors.unverified', { verified: v.verifiedVersions.join(', ') })}
        </span>
      )}
    </span>
  );
}
