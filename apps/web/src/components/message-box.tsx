'use client';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { queueNoticeCurrent } from './page-notices.ts';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';

const newKey = () => crypto.randomUUID().replaceAll('-', '');

/**
 * Writes into the session's durable queue. One key per typed message: a retry after a network
 * hiccup returns the stored message instead of queueing it twice.
 */
export function MessageBox({
  sessionId,
  accepting,
  items,
  onSent,
  running = false,
}: {
  sessionId: string;
  accepting: boolean;
  /** A turn is running: "Send now" (interrupt it, this goes next) is offered beside the default "after this turn". */
  running?: boolean;
  items?: readonly { id: string; status: string }[];
  /** Called once a message is stored (the page then follows the newest turn again). */
  onSent?: () => void;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const errorText = useErrorText();
  const id = useId();
  const [text, setText] = useState('');
  const [key, setKey] = useState(newKey);
  // `messageId`: the stored message a success notice is about; it goes once that message left the queue.
  const [status, setStatus] = useState<{ ok: boolean; text: string; messageId: string | null } | null>(null);
  // "Send now" is remembered per session in this browser (the session's default until changed).
  const nowKey = `bria.sendNow.${sessionId}`;
  const [now, setNowState] = useState(false);
  useEffect(() => setNowState(localStorage.getItem(nowKey) === '1'), [nowKey]);
  const setNow = (on: boolean) => {
    setNowState(on);
    if (on) localStorage.setItem(nowKey, '1');
    else localStorage.removeItem(nowKey);
  };
  const send = useMutation(
    trpc.sessions.sendMessage.mutationOptions({
      onSuccess: (r) => {
        const stored = t(r.duplicate ? 'send.duplicate' : 'send.queued', { seq: r.message.seq });
        setStatus({ ok: true, text: r.interrupted ? `${t('send.interrupted')} ${stored}` : stored, messageId: r.message.id });
        setText('');
        setKey(newKey());
        onSent?.();
      },
      onError: (err) => setStatus({ ok: false, text: errorText(err), messageId: null }),
    }),
  );
  const submit = () => {
    if (!text.trim() || send.isPending) return;
    setStatus(null);
    send.mutate({ sessionId, text, clientKey: key, ...(running && now ? { now: true } : {}) });
  };

  return (
    <form
      className="card message-box"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label htmlFor={id}>{t('send.label')}</label>
      <textarea
        id={id}
        value={text}
        rows={3}
        maxLength={200_000}
        placeholder={t('send.placeholder')}
        data-testid="message-input"
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            submit();
          }
        }}
      />
      {/* In a div: the composer hides its form's own direct labels (the text box's) visually. */}
      {running && (
        <div className="send-now">
          <label className="check small" title={t('send.nowHelp')}>
            <input type="checkbox" checked={now} onChange={(e) => setNow(e.target.checked)} data-testid="send-now" />
            {t('send.now')}
          </label>
        </div>
      )}
      <div className="actions">
        {!accepting && <span className="muted small grow">{t('send.notAccepting')}</span>}
        {/* "Storing…" while the request runs; it ends as "Stored in the queue (#n)." or the service's refusal. */}
        {send.isPending && (
          <span role="status" className="muted small grow" data-testid="send-status">
            {t('send.storing')}
          </span>
        )}
        {!send.isPending && status && (!status.ok || queueNoticeCurrent(status.messageId, items)) && (
          <span role={status.ok ? 'status' : 'alert'} className={`${status.ok ? 'ok-text' : 'error'} grow`} data-testid="send-status">
            {status.text}
          </span>
        )}
        <button type="submit" className="btn btn-primary" disabled={send.isPending || !text.trim()}>
          {t('send.submit')}
        </button>
      </div>
    </form>
  );
}
