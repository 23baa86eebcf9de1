'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { MessageKey } from '../i18n/catalog.ts';
import { useI18n } from './i18n-context.tsx';
import { InlineConfirm } from './inline-confirm.tsx';
import { changeRefusalKey, type HeldBy, type QueueLine, queueLine } from './queue-line.ts';
import { useTRPC } from './trpc.ts';
import type { ConversationItem, QueueWait } from './types.ts';
import { useErrorText } from './use-error-text.ts';

export interface ChangeNotice {
  ok: boolean;
  text: string;
}

/**
 * What the page knows about the queue, passed to every one of the user's messages. The notices of
 * Edit and Cancel live here, per message, not in the message's own row: a refused change means
 * the message moved on (into a turn of the journal), and the refusal must still be read there.
 */
export interface QueueFacts {
  sessionId: string;
  items: readonly ConversationItem[];
  wait: QueueWait | null;
  heldBy: HeldBy;
  notices: ReadonlyMap<string, ChangeNotice>;
  setNotice: (messageId: string, notice: ChangeNotice | null) => void;
}

/** The conversation's notices of Edit and Cancel, by message. */
export function useChangeNotices(): Pick<QueueFacts, 'notices' | 'setNotice'> {
  const [notices, setNotices] = useState<ReadonlyMap<string, ChangeNotice>>(new Map());
  const setNotice = useCallback((messageId: string, notice: ChangeNotice | null) => {
    setNotices((prev) => {
      const next = new Map(prev);
      if (notice) next.set(messageId, notice);
      else next.delete(messageId);
      return next;
    });
  }, []);
  return { notices, setNotice };
}

/** The last Edit or Cancel notice of a message, wherever the message is shown now. */
export function ChangeNoticeLine({ messageId, facts }: { messageId: string; facts: QueueFacts }) {
  const notice = facts.notices.get(messageId);
  if (!notice) return null;
  return (
    <p role={notice.ok ? 'status' : 'alert'} className={`small ${notice.ok ? 'ok-text' : 'error'}`} data-testid="queue-change-notice">
      {notice.text}
    </p>
  );
}

export const lineOf = (m: ConversationItem, q: QueueFacts): QueueLine => queueLine({ message: m, items: q.items, wait: q.wait, heldBy: q.heldBy });

/** "#4 · delivered" beside "You", and "edited" when the text was changed in the queue. */
export function QueueStateTag({ message, line }: { message: ConversationItem; line: QueueLine }) {
  const { t } = useI18n();
  return (
    <>
      {' '}
      <span className={`muted queue-state queue-state-${line.state}`} data-testid="queue-state" data-state={line.state}>
        · {t('conv.queueState', { seq: message.seq, state: t(`conv.queueState.${line.state}` as MessageKey) })}
      </span>
      {message.originalText !== null && (
        <span className="muted" data-testid="message-edited">
          {' '}
          · {t('conv.edited')}
        </span>
      )}
    </>
  );
}

/** The text first sent, folded under an edited message. */
export function EditedOriginal({ message }: { message: ConversationItem }) {
  const { t } = useI18n();
  if (message.originalText === null) return null;
  return (
    <details className="edited-original small" data-testid="edited-original">
      <summary className="edited-summary">{t('conv.editedOriginal')}</summary>
      <div className="plain muted">{message.originalText}</div>
    </details>
  );
}

/**
 * Under a message still in the queue: what it waits for (which dialog holds it), and Edit / Cancel
 * while it may still be changed. Edit replaces the text in place (Ctrl/⌘+Enter saves, as in the
 * composer; Escape keeps it as it was); Cancel asks first. A refusal ("already delivered") is
 * shown in words under the message and stays until the next action.
 */
export function QueueControls({ message, line, facts }: { message: ConversationItem; line: QueueLine; facts: QueueFacts }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const errorText = useErrorText();
  const id = useId();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(message.text);
  const setNotice = (n: ChangeNotice | null) => facts.setNotice(message.id, n);
  const area = useRef<HTMLTextAreaElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const refocus = useRef(false);
  // Into the text when editing starts; back on Edit when the user leaves it (as InlineConfirm does).
  useEffect(() => {
    if (editing) area.current?.focus();
    else if (refocus.current) {
      refocus.current = false;
      editButton.current?.focus();
    }
  }, [editing]);
  // Handed to the CLI while the text was being edited: the edit can no longer apply, and is not dropped silently.
  const movedOn = editing && !line.changeable;
  useEffect(() => {
    if (!movedOn) return;
    setEditing(false);
    facts.setNotice(message.id, { ok: false, text: t('conv.change.refused.being_delivered') });
  }, [movedOn, facts.setNotice, message.id, t]);
  const refresh = () => queryClient.invalidateQueries(trpc.sessions.get.queryFilter({ sessionId: facts.sessionId }));
  // A refusal ("already delivered") ends the edit: the message moved on. Any other error (a text the
  // CLI could not take, the network) leaves the text in the box to fix or send again.
  const onError = (err: unknown) => {
    const said = err instanceof TRPCClientError ? (err.data as { userMessage?: string | null } | undefined)?.userMessage : null;
    const key = changeRefusalKey(said);
    setNotice({ ok: false, text: key ? t(key) : errorText(err) });
    if (key) {
      setEditing(false);
      void refresh();
    }
  };
  const edit = useMutation(
    trpc.sessions.editMessage.mutationOptions({
      onSuccess: () => {
        setNotice({ ok: true, text: t('conv.change.edited') });
        setEditing(false);
        void refresh();
      },
      onError,
    }),
  );
  const cancel = useMutation(trpc.sessions.cancelMessage.mutationOptions({ onSuccess: () => void refresh(), onError }));
  const busy = edit.isPending || cancel.isPending;
  const save = () => {
    if (!text.trim() || busy) return;
    if (text === message.text) {
      refocus.current = true;
      return void setEditing(false);
    }
    setNotice(null);
    edit.mutate({ messageId: message.id, text });
  };
  const discard = () => {
    refocus.current = true;
    setEditing(false);
    setText(message.text);
  };

  return (
    <div className="queue-controls" data-testid="queue-controls">
      <p className="working small" role="status" data-testid="queue-line" data-state={line.state}>
        {t(line.key, line.vars)}
      </p>
      {editing ? (
        <form
          className="queue-edit"
          onSubmit={(e) => {
            e.preventDefault();
            save();
          }}
        >
          <label htmlFor={id} className="sr-only">
            {t('conv.change.editLabel', { seq: message.seq })}
          </label>
          <textarea
            id={id}
            ref={area}
            value={text}
            rows={3}
            maxLength={200_000}
            data-testid="queue-edit-input"
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                save();
              } else if (e.key === 'Escape') {
                e.preventDefault();
                discard();
              }
            }}
          />
          <div className="actions actions-start">
            <button type="submit" className="btn btn-primary btn-small" disabled={busy || !text.trim()} data-testid="queue-edit-save">
              {edit.isPending ? t('conv.change.saving') : t('conv.change.save')}
            </button>
            <button type="button" className="btn btn-small" onClick={discard} disabled={busy}>
              {t('conv.change.discard')}
            </button>
          </div>
        </form>
      ) : (
        line.changeable && (
          <div className="actions actions-start queue-actions">
            <button
              ref={editButton}
              type="button"
              className="btn btn-small"
              disabled={busy}
              aria-label={t('conv.change.editLabel', { seq: message.seq })}
              data-testid="queue-edit"
              onClick={() => {
                setText(message.text);
                setNotice(null);
                setEditing(true);
              }}
            >
              {t('conv.change.edit')}
            </button>
            <InlineConfirm
              label={cancel.isPending ? t('conv.change.cancelling') : t('conv.change.cancel')}
              question={t('conv.change.cancelQuestion', { seq: message.seq })}
              confirmLabel={t('conv.change.cancelConfirm')}
              className="btn btn-small"
              disabled={busy}
              testId="queue-cancel"
              onConfirm={() => {
                setNotice(null);
                cancel.mutate({ messageId: message.id });
              }}
            />
          </div>
        )
      )}
      <ChangeNoticeLine messageId={message.id} facts={facts} />
    </div>
  );
}

/** A message the user cancelled before it reached the CLI: shown where it was sent, struck through. */
export function CancelledMessage({ message, facts }: { message: ConversationItem; facts: QueueFacts }) {
  const { t } = useI18n();
  const line = lineOf(message, facts);
  return (
    <li className="turn turn-cancelled" data-testid="cancelled-message" data-message-id={message.id}>
      <div className="bubble bubble-user bubble-cancelled">
        <p className="who">
          {t('conv.you')}
          <QueueStateTag message={message} line={line} />
        </p>
        <div className="plain">{message.text}</div>
        <EditedOriginal message={message} />
      </div>
      <QueueControls message={message} line={line} facts={facts} />
    </li>
  );
}
