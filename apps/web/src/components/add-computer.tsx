'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';

/** The clipboard API exists only on HTTPS or localhost; elsewhere select the text for a manual copy. */
async function copyOrSelect(text: string, node: HTMLElement | null): Promise<boolean> {
  try {
    if (navigator.clipboard) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to selecting
  }
  if (node) {
    const range = document.createRange();
    range.selectNodeContents(node);
    window.getSelection()?.removeAllRanges();
    window.getSelection()?.addRange(range);
  }
  return false;
}

/**
 * Said before the command when no other computer could use it (the server decides: domain/hub-reach.ts):
 * what is wrong, in a sentence, and which variables change it.
 */
function ReachWarning() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const reach = useQuery(trpc.nodes.hubReach.queryOptions());
  const r = reach.data;
  if (r?.plaintext) {
    return (
      <div className="warning" role="alert" data-testid="plaintext-warning">
        <p>{t('nodes.add.plaintext')}</p>
      </div>
    );
  }
  if (!r || r.reach === 'ok') return null;
  const local = r.reach === 'listens-locally';
  const host = local ? r.listenHost : hostOf(r.hubUrl);
  return (
    <div className="warning" role="note" data-testid="reach-warning" data-reach={r.reach}>
      <p>{local ? t('nodes.add.reachLocal', { host }) : t('nodes.add.reachAddress', { host })}</p>
      <p>{local ? t('nodes.add.reachLocalFix', { variable: r.variable }) : t('nodes.add.reachAddressFix')}</p>
    </div>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

/**
 * Creates a node and shows its agent token and command exactly once: they live only in this
 * component's state and are dropped on "Done".
 */
export function AddComputer() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const errorText = useErrorText();
  const nameId = useId();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const commandRef = useRef<HTMLPreElement>(null);
  const add = useMutation(
    trpc.nodes.addComputer.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.nodes.list.pathFilter()),
      onError: (err) => setError(errorText(err)),
    }),
  );
  const created = add.data;

  const close = () => {
    add.reset();
    setOpen(false);
    setName('');
    setError(null);
    setCopied(false);
  };

  if (!open) {
    return (
      <button type="button" className="btn btn-primary" onClick={() => setOpen(true)}>
        {t('nodes.add.button')}
      </button>
    );
  }

  return (
    <section className="card add" aria-labelledby={`${nameId}-title`}>
      <h2 id={`${nameId}-title`}>{t('nodes.add.title')}</h2>
      <ReachWarning />
      {created ? (
        <div data-testid="new-token">
          <p role="status" className="warning">
            {t('nodes.add.onceWarning')}
          </p>
          <p>{t('nodes.add.runThis')}</p>
          <pre className="command" data-testid="add-command" ref={commandRef}>
            <code>{created.command}</code>
          </pre>
          <p className="muted small">
            {t('nodes.add.tokenLabel')}:{' '}
            <code className="token" data-testid="add-token">
              {created.token}
            </code>
          </p>
          <div className="actions">
            <button type="button" className="btn" onClick={() => copyOrSelect(created.command, commandRef.current).then(setCopied)}>
              {copied ? t('nodes.add.copied') : t('nodes.add.copy')}
            </button>
            <button type="button" className="btn btn-primary" onClick={close}>
              {t('nodes.add.done')}
            </button>
          </div>
        </div>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!name.trim()) return setError(t('nodes.add.nameRequired'));
            setError(null);
            add.mutate({ name: name.trim() });
          }}
        >
          <label htmlFor={nameId}>{t('nodes.add.name')}</label>
          <input
            id={nameId}
            name="name"
            value={name}
            maxLength={80}
            autoComplete="off"
            placeholder={t('nodes.add.namePlaceholder')}
            onChange={(e) => setName(e.target.value)}
          />
          {error && (
            <p role="alert" className="error">
              {error}
            </p>
          )}
          <div className="actions">
            <button type="button" className="btn" onClick={close}>
              {t('nodes.add.cancel')}
            </button>
            <button type="submit" className="btn btn-primary" disabled={add.isPending}>
              {t('nodes.add.submit')}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
