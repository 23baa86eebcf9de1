'use client';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { useTRPC } from './trpc.ts';

export interface DraftView {
  messageId: string;
  v: number;
  /** Characters of the draft before `text` the page was not sent (a long answer shows its end). */
  cut: number;
  text: string;
}

/**
 * The answer being written for the session's running turn, as the agent reads it from the CLI's
 * screen (live.draft). Ephemeral: shown only until the turn's final (from the journal) arrives.
 */
export function useDraft(sessionId: string, enabled: boolean): DraftView | null {
  const trpc = useTRPC();
  const [draft, setDraft] = useState<DraftView | null>(null);
  useSubscription(
    trpc.live.draft.subscriptionOptions(
      { sessionId },
      {
        enabled,
        onData: (d) => setDraft((prev) => (prev && prev.messageId === d.messageId && prev.v >= d.v ? prev : d)),
      },
    ),
  );
  return draft;
}

/** The draft as a bubble marked "being written" (never a final: the final replaces it). */
export function DraftBubble({ draft }: { draft: DraftView }) {
  const { t } = useI18n();
  return (
    <div className="bubble bubble-agent bubble-draft" data-testid="draft" data-v={draft.v} aria-live="polite" aria-busy="true">
      <p className="who">
        {t('conv.agent')} <span className="muted small">· {t('conv.draft')}</span>
      </p>
      <div className="plain">
        {draft.cut > 0 ? '… ' : ''}
        {draft.text}
      </div>
    </div>
  );
}
