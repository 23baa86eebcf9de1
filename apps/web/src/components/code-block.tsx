'use client';
import { type ReactNode, useEffect, useState } from 'react';
import { useI18n } from './i18n-context.tsx';

/** A code block longer than this is folded to its first `CODE_FOLDED_LINES` lines. */
export const CODE_FOLD_LINES = 30;
export const CODE_FOLDED_LINES = 20;
/** A whole answer longer than this many lines is folded to a fixed height. */
export const ANSWER_FOLD_LINES = 80;
const COPIED_MS = 2000;

type CopyState = 'idle' | 'copied' | 'failed';

/**
 * A fenced block of an answer: its language, a Copy button (the whole code, also when folded) and,
 * when long, its first lines with "Show all (N lines)".
 */
export function CodeBlock({ lang, body }: { lang: string | null; body: string }) {
  const { t } = useI18n();
  const lines = body.split('\n');
  const long = lines.length > CODE_FOLD_LINES;
  const [open, setOpen] = useState(false);
  const [copy, setCopy] = useState<CopyState>('idle');
  useEffect(() => {
    if (copy !== 'copied') return;
    const id = setTimeout(() => setCopy('idle'), COPIED_MS);
    return () => clearTimeout(id);
  }, [copy]);
  const onCopy = async () => {
    setCopy((await copyText(body)) ? 'copied' : 'failed');
  };
  const shown = long && !open ? lines.slice(0, CODE_FOLDED_LINES).join('\n') : body;

  return (
    <div className="code-block" data-testid="code-block" data-lang={lang ?? undefined} data-folded={long ? String(!open) : undefined}>
      <div className="code-head">
        <span className="code-lang" data-testid="code-lang">
          {lang ?? ''}
        </span>
        <button type="button" className="btn btn-small" onClick={() => void onCopy()} data-testid="code-copy">
          {copy === 'copied' ? t('md.copied') : t('md.copy')}
        </button>
      </div>
      <pre className="code">
        <code data-lang={lang ?? undefined}>{shown}</code>
      </pre>
      {copy === 'failed' && (
        <p role="alert" className="error small">
          {t('md.copyFailed')}
        </p>
      )}
      {copy === 'copied' && (
        <span className="sr-only" role="status">
          {t('md.copied')}
        </span>
      )}
      {long && <FoldToggle open={open} lines={lines.length} onToggle={() => setOpen((o) => !o)} />}
    </div>
  );
}

/** An answer longer than `ANSWER_FOLD_LINES` lines shows its beginning until it is unfolded. */
export function FoldedAnswer({ lines, children }: { lines: number; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  if (lines <= ANSWER_FOLD_LINES) return <>{children}</>;
  return (
    <div className="md-fold" data-testid="answer-fold" data-folded={String(!open)}>
      <div className={open ? undefined : 'md-folded'}>{children}</div>
      <FoldToggle open={open} lines={lines} onToggle={() => setOpen((o) => !o)} />
    </div>
  );
}

function FoldToggle({ open, lines, onToggle }: { open: boolean; lines: number; onToggle: () => void }) {
  const { t } = useI18n();
  return (
    <button type="button" className="btn btn-small fold-toggle" aria-expanded={open} onClick={onToggle} data-testid="fold-toggle">
      {open ? t('md.showLess') : t('md.showAll', { lines })}
    </button>
  );
}

/**
 * The Clipboard API where the page may use it (https, localhost); on a plain-http address it does
 * not exist, so the whole text is put in a hidden text field and the browser's copy command is tried.
 */
async function copyText(text: string): Promise<boolean> {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Refused (no permission, page not focused): the copy command below may still work.
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
  }
}
