'use client';
import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useId, useState } from 'react';
import { ComposerFiles, encodeFiles, filesRefusal, type PickedFile } from '../composer-files.tsx';
import { useI18n } from '../i18n-context.tsx';
import { sessionTitle } from '../session-bits.tsx';
import { useTRPC } from '../trpc.ts';
import { useErrorText } from '../use-error-text.ts';
import { useOpenSessions } from '../use-open-sessions.ts';

/** Where the service worker keeps the files of the last share (public/sw.js). */
const SHARE_CACHE = 'bria-share';

/** The files the service worker kept for this share, in the order shared. */
async function readSharedFiles(count: number): Promise<PickedFile[]> {
  if (typeof caches === 'undefined') return [];
  const cache = await caches.open(SHARE_CACHE);
  const out: PickedFile[] = [];
  for (let i = 0; i < count; i++) {
    const r = await cache.match(`/share/file/${i}`);
    if (!r) continue;
    const blob = await r.blob();
    const name = decodeURIComponent(r.headers.get('x-bria-name') ?? `file-${i + 1}`);
    out.push({ key: `shared-${i}`, file: new File([blob], name, { type: r.headers.get('content-type') ?? blob.type }) });
  }
  return out;
}

/**
 * Shared text (editable) and files (removable, previewed as in the composer), and the open session
 * they go to; sent through the queue like any message, files through the composer's own path.
 */
export function SharePicker({
  initialText,
  sharedFiles = 0,
  droppedFiles = 0,
  unreadable = false,
}: {
  initialText: string;
  sharedFiles?: number;
  droppedFiles?: number;
  unreadable?: boolean;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const errorText = useErrorText();
  const id = useId();
  const open = useOpenSessions();
  const [text, setText] = useState(initialText);
  const [chosen, setChosen] = useState('');
  // One key per page: pressing Send twice (or a retry after a lost answer) stores the message once.
  const [clientKey] = useState(() => crypto.randomUUID().replaceAll('-', ''));
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [files, setFiles] = useState<PickedFile[]>([]);
  const [missing, setMissing] = useState(0);
  useEffect(() => {
    if (sharedFiles === 0) return;
    let live = true;
    readSharedFiles(sharedFiles)
      .then((f) => {
        if (!live) return;
        setFiles(f);
        setMissing(sharedFiles - f.length);
      })
      .catch(() => live && setMissing(sharedFiles));
    return () => {
      live = false;
    };
  }, [sharedFiles]);
  const send = useMutation(
    trpc.sessions.sendMessage.mutationOptions({
      onSuccess: (_r, v) => {
        // Sent: the kept files are the message's now; the next share starts empty.
        if (typeof caches !== 'undefined') void caches.delete(SHARE_CACHE);
        setStatus({ ok: true, text: t('share.sent') });
        router.push(`/sessions/${v.sessionId}`);
      },
      onError: (err) => setStatus({ ok: false, text: errorText(err) }),
    }),
  );
  const sessions = open.sessions.filter((s) => s.acceptsMessages);
  const target = chosen || sessions[0]?.id || '';
  return (
    <>
      <h1 className="page-title">{t('share.title')}</h1>
      <form
        className="card stack"
        data-testid="share-form"
        onSubmit={async (e) => {
          e.preventDefault();
          if (!target || (!text.trim() && files.length === 0)) return;
          const refusal = filesRefusal(files);
          if (refusal) return setStatus({ ok: false, text: t(refusal === 'too_big' ? 'send.tooBig' : 'send.tooMany') });
          setStatus(null);
          const attachments = files.length ? await encodeFiles(files) : undefined;
          send.mutate({ sessionId: target, text, clientKey, ...(attachments ? { attachments } : {}) });
        }}
      >
        {initialText === '' && sharedFiles === 0 && droppedFiles === 0 && <p className="muted small">{t('share.empty')}</p>}
        {unreadable && (
          <p className="error" role="alert">
            {t('share.unreadable')}
          </p>
        )}
        {(droppedFiles > 0 || missing > 0) && (
          <p className="warning" role="alert" data-testid="share-files-missing">
            {t('share.filesMissing', { count: droppedFiles + missing })}
          </p>
        )}
        <label htmlFor={`${id}-t`}>{t('send.label')}</label>
        <textarea id={`${id}-t`} rows={6} value={text} onChange={(e) => setText(e.target.value)} data-testid="share-text" />
        <ComposerFiles files={files} onRemove={(key) => setFiles((f) => f.filter((x) => x.key !== key))} />
        {!open.pending && sessions.length === 0 ? (
          <p className="muted">{t('share.none')}</p>
        ) : (
          <>
            <label htmlFor={`${id}-s`}>{t('share.session')}</label>
            <select id={`${id}-s`} value={target} onChange={(e) => setChosen(e.target.value)} data-testid="share-session">
              {sessions.map((s) => (
                <option key={s.id} value={s.id}>
                  {sessionTitle(s, t)} — {s.nodeName}
                </option>
              ))}
            </select>
          </>
        )}
        <div className="actions">
          {status && (
            <span role={status.ok ? 'status' : 'alert'} className={`${status.ok ? 'ok-text' : 'error'} grow`}>
              {status.text}
            </span>
          )}
          <button type="submit" className="btn btn-primary" disabled={!target || (!text.trim() && files.length === 0) || send.isPending}>
            {t('share.send')}
          </button>
        </div>
      </form>
    </>
  );
}
