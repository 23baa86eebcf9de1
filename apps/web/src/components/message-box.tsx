'use client';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { ComposerFiles, encodeFiles, filesRefusal, type PickedFile } from './composer-files.tsx';
import { useI18n } from './i18n-context.tsx';
import { queueNoticeCurrent } from './page-notices.ts';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';
import { VoiceRecorder } from './voice-recorder.tsx';

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
  // Files pasted, dropped or picked (issue 34): sent with the text through the same queue.
  const [files, setFiles] = useState<PickedFile[]>([]);
  const addFiles = (list: FileList | readonly File[]) => {
    const picked = Array.from(list).map((file) => ({ key: `${file.name}-${file.size}-${Math.random()}`, file }));
    if (picked.length) setFiles((f) => [...f, ...picked]);
  };
  const send = useMutation(
    trpc.sessions.sendMessage.mutationOptions({
      onSuccess: (r) => {
        const stored = t(r.duplicate ? 'send.duplicate' : 'send.queued', { seq: r.message.seq });
        setStatus({ ok: true, text: r.interrupted ? `${t('send.interrupted')} ${stored}` : stored, messageId: r.message.id });
        setText('');
        setFiles([]);
        setKey(newKey());
        onSent?.();
      },
      onError: (err) => setStatus({ ok: false, text: errorText(err), messageId: null }),
    }),
  );
  const submit = async () => {
    if ((!text.trim() && files.length === 0) || send.isPending) return;
    const refusal = filesRefusal(files);
    if (refusal) return setStatus({ ok: false, text: t(refusal === 'too_big' ? 'send.tooBig' : 'send.tooMany'), messageId: null });
    setStatus(null);
    const attachments = files.length ? await encodeFiles(files) : undefined;
    send.mutate({ sessionId, text, clientKey: key, ...(attachments ? { attachments } : {}), ...(running && now ? { now: true } : {}) });
  };

  return (
    <form
      className="card message-box"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      onDragOver={(e) => {
        if (e.dataTransfer.types.includes('Files')) e.preventDefault();
      }}
      onDrop={(e) => {
        if (e.dataTransfer.files.length === 0) return;
        e.preventDefault();
        addFiles(e.dataTransfer.files);
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
        onPaste={(e) => {
          // A pasted image (a screenshot) comes as a file; pasted text stays text.
          if (e.clipboardData.files.length === 0) return;
          e.preventDefault();
          addFiles(e.clipboardData.files);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            void submit();
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
      <ComposerFiles files={files} onRemove={(k) => setFiles((f) => f.filter((x) => x.key !== k))} />
      <div className="actions">
        <label className="btn btn-small file-pick">
          {t('send.attach')}
          <input
            type="file"
            multiple
            className="sr-only"
            data-testid="file-input"
            onChange={(e) => {
              if (e.target.files) addFiles(e.target.files);
              e.target.value = '';
            }}
          />
        </label>
        <VoiceRecorder
          sessionId={sessionId}
          onTranscript={(said) => setText((typed) => (typed.trim() ? `${typed.trimEnd()} ${said}` : said))}
          onKeepFile={(file) => addFiles([file])}
        />
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
        <button type="submit" className="btn btn-primary" disabled={send.isPending || (!text.trim() && files.length === 0)}>
          {t('send.submit')}
        </button>
      </div>
    </form>
  );
}
