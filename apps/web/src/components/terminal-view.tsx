'use client';
import { useMutation } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import type { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { useTRPC } from './trpc.ts';
import { useErrorText } from './use-error-text.ts';

const fromBase64 = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
/** Font size that fits the pane's columns into the width (monospace cells are about 0.6 em wide). */
const fitFont = (width: number, cols: number) => Math.max(6, Math.min(14, Math.floor((width - 8) / (cols * 0.61))));

/**
 * The session's pane as it is drawn (xterm.js), fed by the agent's control-mode stream through the
 * hub (live.terminal; nothing stored, nothing polled). Read-only until "Type into the terminal" is
 * switched on; typing is refused while a dialog Bria tracks is open (the server checks it too).
 */
export function TerminalView({ sessionId, dialogOpen }: { sessionId: string; dialogOpen: boolean }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const errorText = useErrorText();
  const box = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const queue = useRef<{ kind: 'snapshot' | 'output'; data: string; cols?: number; rows?: number }[]>([]);
  const [typing, setTyping] = useState(false);
  const [copied, setCopied] = useState(false);
  const [seen, setSeen] = useState(false);
  const typingRef = useRef(false);
  typingRef.current = typing && !dialogOpen;
  const type = useMutation(trpc.live.terminalInput.mutationOptions());
  const sendRef = useRef(type.mutate);
  sendRef.current = type.mutate;

  const apply = (p: { kind: 'snapshot' | 'output'; data: string; cols?: number; rows?: number }) => {
    const x = term.current;
    if (!x) {
      queue.current.push(p);
      return;
    }
    if (p.kind === 'snapshot') {
      if (p.cols && p.rows) {
        x.resize(p.cols, p.rows);
        x.options.fontSize = fitFont(box.current?.clientWidth ?? 360, p.cols);
      }
      x.reset();
    }
    x.write(fromBase64(p.data));
  };

  useSubscription(
    trpc.live.terminal.subscriptionOptions(
      { sessionId },
      {
        onData: (p) => {
          setSeen(true);
          apply(p);
        },
      },
    ),
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: the terminal is made once per session
  useEffect(() => {
    let disposed = false;
    let x: Terminal | null = null;
    void import('@xterm/xterm').then(({ Terminal }) => {
      if (disposed || !box.current) return;
      x = new Terminal({ convertEol: false, disableStdin: false, cursorBlink: false, scrollback: 2000, fontSize: 12 });
      x.open(box.current);
      x.onData((data) => {
        if (typingRef.current) sendRef.current({ sessionId, data });
      });
      term.current = x;
      for (const p of queue.current.splice(0)) apply(p);
    });
    return () => {
      disposed = true;
      x?.dispose();
      term.current = null;
    };
  }, [sessionId]);

  const copy = async () => {
    const x = term.current;
    if (!x) return;
    const b = x.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < b.length; i++) lines.push(b.getLine(i)?.translateToString(true) ?? '');
    await navigator.clipboard?.writeText(lines.join('\n').replace(/\n+$/, '\n')).catch(() => undefined);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };

  return (
    <div className="terminal-view" data-testid="terminal-view" data-typing={typing && !dialogOpen}>
      <div className="terminal-bar">
        <label className="small">
          <input type="checkbox" checked={typing} disabled={dialogOpen} onChange={(e) => setTyping(e.target.checked)} data-testid="terminal-type" />{' '}
          {t('terminal.type')}
        </label>
        <button type="button" className="btn btn-small" onClick={() => void copy()} data-testid="terminal-copy">
          {copied ? t('terminal.copied') : t('terminal.copy')}
        </button>
      </div>
      {dialogOpen && (
        <p className="muted small" role="note" data-testid="terminal-dialog-note">
          {t('terminal.dialogOpen')}
        </p>
      )}
      {!seen && <p className="muted small">{t('terminal.connecting')}</p>}
      {type.error && (
        <p className="error small" role="alert" data-testid="terminal-error">
          {errorText(type.error)}
        </p>
      )}
      <div className="terminal-box" ref={box} data-testid="terminal-box" />
      <p className="muted small">{t('terminal.help')}</p>
    </div>
  );
}
