'use client';
import { MODEL_SUGGESTIONS, PERMISSION_MODES } from '@bria/core/protocol';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { AnyKey } from '../i18n/catalog.ts';
import { useI18n } from './i18n-context.tsx';
import { useTRPC } from './trpc.ts';
import type { Executor } from './types.ts';
import { useErrorText } from './use-error-text.ts';

const modeKey = (executor: Executor, mode: string) => `mode.${executor}.${mode}` as AnyKey;
const unavailableKey = (executor: Executor, mode: string) => `mode.unavailable.${executor}:${mode}` as AnyKey;

/**
 * The executor's permission modes as radio buttons, the node's default preselected by the caller. A
 * mode the node cannot start (Claude's bypassPermissions for root) is shown disabled with the reason.
 */
export function ModePicker({
  executor,
  value,
  onChange,
  unavailable,
  disabled,
}: {
  executor: Executor;
  value: string;
  onChange: (mode: string) => void;
  unavailable: readonly string[];
  disabled?: boolean;
}) {
  const { t } = useI18n();
  const name = useId();
  // Read as plain strings: the two executors' mode lists are different tuples.
  const blocked: readonly string[] = PERMISSION_MODES[executor].filter((m) => unavailable.includes(`${executor}:${m}`));
  return (
    <fieldset className="executors" disabled={disabled} data-testid={`mode-picker-${executor}`}>
      <legend>{t('choice.mode')}</legend>
      {PERMISSION_MODES[executor].map((m) => (
        <label key={m} className="check">
          <input type="radio" name={name} value={m} checked={value === m} disabled={blocked.includes(m)} onChange={() => onChange(m)} />
          {t(modeKey(executor, m))}
        </label>
      ))}
      {blocked.map((m) => (
        <p key={m} className="muted small" data-testid="mode-unavailable">
          {t(unavailableKey(executor, m))}
        </p>
      ))}
    </fieldset>
  );
}

/** Optional model: a short list of what the CLI offers, or any name typed (checked by the hub). */
export function ModelInput({ executor, value, onChange, disabled }: { executor: Executor; value: string; onChange: (m: string) => void; disabled?: boolean }) {
  const { t } = useI18n();
  const id = useId();
  return (
    <div>
      <label htmlFor={`${id}-m`}>{t('choice.model')}</label>
      <input
        id={`${id}-m`}
        name="model"
        value={value}
        placeholder={t('choice.modelDefault')}
        autoComplete="off"
        spellCheck={false}
        className="mono"
        maxLength={100}
        disabled={disabled}
        list={`${id}-models`}
        onChange={(e) => onChange(e.target.value)}
        data-testid="model-input"
      />
      <datalist id={`${id}-models`}>
        {MODEL_SUGGESTIONS[executor].map((m) => (
          <option key={m} value={m} />
        ))}
      </datalist>
      <div className="chips">
        {MODEL_SUGGESTIONS[executor].map((m) => (
          <button key={m} type="button" className="chip mono" disabled={disabled} onClick={() => onChange(m)}>
            {m}
          </button>
        ))}
      </div>
    </div>
  );
}

/** The session's fixed choices, for the session page's facts. */
export function ChoiceFacts({ executor, permissionMode, model }: { executor: Executor; permissionMode: string; model: string | null }) {
  const { t } = useI18n();
  return (
    <>
      <div className="span-2">
        <dt>{t('choice.mode')}</dt>
        <dd data-testid="session-mode">{t(modeKey(executor, permissionMode))}</dd>
      </div>
      <div>
        <dt>{t('choice.model')}</dt>
        <dd className="mono" data-testid="session-model">
          {model ?? t('choice.modelDefault')}
        </dd>
      </div>
    </>
  );
}

/** Node settings: the mode preselected for new sessions of each enabled executor. */
export function NodeDefaultModes({
  node,
}: {
  node: { id: string; enabledExecutors: Executor[]; defaultModes: Record<Executor, string>; unavailableModes: string[] };
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const errorText = useErrorText();
  const [error, setError] = useState<string | null>(null);
  const set = useMutation(
    trpc.nodes.setPermissionMode.mutationOptions({
      onSuccess: () => {
        setError(null);
        return queryClient.invalidateQueries(trpc.nodes.list.pathFilter());
      },
      onError: (err) => setError(errorText(err)),
    }),
  );
  return (
    <div data-testid="node-default-modes">
      {node.enabledExecutors.map((e) => (
        <ModePicker
          key={e}
          executor={e}
          value={node.defaultModes[e]}
          unavailable={node.unavailableModes}
          disabled={set.isPending}
          onChange={(mode) => set.mutate({ nodeId: node.id, executor: e, mode })}
        />
      ))}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </div>
  );
}
