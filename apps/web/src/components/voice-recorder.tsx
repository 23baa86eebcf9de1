'use client';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { AnyKey } from '../i18n/catalog.ts';
import { encodeFiles } from './composer-files.tsx';
import { useI18n } from './i18n-context.tsx';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';

/** A recording stops by itself after this long (far below the services' 25 MB at Opus rates). */
const MAX_RECORDING_MS = 10 * 60_000;
const MIME = 'audio/webm;codecs=opus';
const clock = (ms: number) => `${Math.floor(ms / 60_000)}:${String(Math.floor(ms / 1000) % 60).padStart(2, '0')}`;

/**
 * The composer's record button (issue 34, docs/voice.md): the microphone is recorded as WebM/Opus,
 * the recording time and Stop are shown, and the recording goes to `sessions.transcribe`. Its
 * transcript is put into the message box for the user to check and Send; without a service, or
 * when it fails, the recording is attached to the message instead and the reason is shown.
 */
export function VoiceRecorder({
  sessionId,
  onTranscript,
  onKeepFile,
}: {
  sessionId: string;
  onTranscript: (text: string) => void;
  onKeepFile: (file: File) => void;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const errorText = useErrorText();
  const [startedAt, setStartedAt] = useState<number | null>(null);
  const [elapsed, setElapsed] = useState(0);
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  const recorder = useRef<MediaRecorder | null>(null);
  const transcribe = useMutation(trpc.sessions.transcribe.mutationOptions());

  useEffect(() => {
    if (startedAt === null) return;
    // The display's tick; the recording itself is timed by MediaRecorder.
    const tick = setInterval(() => {
      const ms = Date.now() - startedAt;
      setElapsed(ms);
      if (ms >= MAX_RECORDING_MS) recorder.current?.stop();
    }, 250);
    return () => clearInterval(tick);
  }, [startedAt]);
  useEffect(
    () => () => {
      for (const tr of recorder.current?.stream.getTracks() ?? []) tr.stop();
    },
    [],
  );

  const upload = async (file: File) => {
    const [audio] = await encodeFiles([{ key: file.name, file }]);
    if (!audio) return;
    try {
      const r = await transcribe.mutateAsync({ sessionId, clientKey: crypto.randomUUID().replaceAll('-', ''), audio: { ...audio, mime: file.type || MIME } });
      if (r.transcript !== null) {
        onTranscript(r.transcript);
        return setNotice({ ok: true, text: t('rec.transcribed') });
      }
      onKeepFile(file);
      if (!r.configured) return setNotice({ ok: false, text: t('rec.off') });
      const words = r.words ? t('voice.words', { words: r.words }) : '';
      setNotice({ ok: false, text: t('rec.failed', { reason: t(`voice.why.${r.failure ?? 'refused'}` as AnyKey), words }) });
    } catch (err) {
      onKeepFile(file);
      setNotice({ ok: false, text: `${errorText(err)} ${t('rec.attached')}` });
    }
  };

  const start = async () => {
    setNotice(null);
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (err) {
      return setNotice({ ok: false, text: t('rec.micRefused', { error: err instanceof Error ? err.message : String(err) }) });
    }
    const rec = new MediaRecorder(stream, MediaRecorder.isTypeSupported(MIME) ? { mimeType: MIME } : {});
    const chunks: Blob[] = [];
    rec.ondataavailable = (e) => {
      if (e.data.size > 0) chunks.push(e.data);
    };
    rec.onstop = () => {
      for (const tr of stream.getTracks()) tr.stop();
      setStartedAt(null);
      const type = rec.mimeType || MIME;
      const file = new File(chunks, `recording-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}.webm`, { type });
      if (file.size > 0) void upload(file);
    };
    recorder.current = rec;
    rec.start(1000);
    setElapsed(0);
    setStartedAt(Date.now());
  };

  const recording = startedAt !== null;
  return (
    <span className="voice-recorder">
      {recording ? (
        <>
          <span role="status" className="muted small" data-testid="rec-time">
            {t('rec.recording', { time: clock(elapsed) })}
          </span>
          <button type="button" className="btn btn-small" data-testid="rec-stop" onClick={() => recorder.current?.stop()}>
            {t('rec.stop')}
          </button>
        </>
      ) : (
        <button type="button" className="btn btn-small" data-testid="rec-start" disabled={transcribe.isPending} onClick={() => void start()}>
          {transcribe.isPending ? t('rec.transcribing') : t('rec.record')}
        </button>
      )}
      {notice && !recording && !transcribe.isPending && (
        <span role={notice.ok ? 'status' : 'alert'} className={`${notice.ok ? 'ok-text' : 'error'} small`} data-testid="rec-notice">
          {notice.text}
        </span>
      )}
    </span>
  );
}
