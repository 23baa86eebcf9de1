'use client';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { InlineConfirm } from './inline-confirm.tsx';
import { useTRPC } from './trpc.ts';
import type { SessionItem } from './types.ts';
import { useErrorText } from './use-error-text.ts';

/**
 * "Adopt in place" beside "Continue here" (docs/handoff.md): for a closed record whose CLI runs,
 * begun by hand, in a tmux pane at its computer. After a confirmation that says what happens, the
 * agent binds to that pane without restarting the CLI; the service refuses anything else (another
 * pid by now, not in tmux, an agent that cannot adopt) and its reason is shown here.
 */
export function AdoptButton({ session }: { session: SessionItem }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const errorText = useErrorText();
  const [error, setError] = useState<{ text: string; version: number } | null>(null);
  const adopt = useMutation(
    trpc.sessions.adoptInPlace.mutationOptions({
      onSuccess: () => setError(null),
      onError: (err: unknown) => setError({ text: errorText(err), version: session.version }),
    }),
  );
  const desk = session.desk;
  if (!desk) return null;
  if (desk.handoff === 'adopting') {
    return (
      <p role="status" className="small" data-testid="desk-adopting">
        {t('desk.adopting')}
      </p>
    );
  }
  const closed = session.state === 'Archived' || session.state === 'ResumeFailed';
  if (desk.handoff !== 'desk' || desk.pid === null || !desk.inTmux || !closed) return null;
  const pid = desk.pid;
  return (
    <div data-testid="adopt-panel">
      <InlineConfirm
        label={t('desk.adopt')}
        question={t('desk.adoptConfirm')}
        confirmLabel={t('desk.adoptButton')}
        disabled={adopt.isPending}
        testId="adopt-in-place"
        onConfirm={() => {
          setError(null);
          adopt.mutate({ sessionId: session.id, pid });
        }}
        hint={<p className="muted small">{t('desk.adoptHint')}</p>}
      />
      {error && error.version === session.version && (
        <p role="alert" className="error" data-testid="adopt-message">
          {error.text}
        </p>
      )}
    </div>
  );
}
