'use client';
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { useI18n } from './i18n-context.tsx';

/**
 * A button that asks first, in place (no native `confirm()`): the question replaces the button;
 * Escape or Cancel puts the button back and focus returns to it.
 */
export function InlineConfirm({
  label,
  question,
  confirmLabel,
  onConfirm,
  disabled = false,
  className = 'btn',
  hint,
  testId,
}: {
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
  className?: string;
  hint?: ReactNode;
  testId?: string;
}) {
  const { t } = useI18n();
  const id = useId();
  const [open, setOpen] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const refocus = useRef(false);
  useEffect(() => {
    if (open) cancel.current?.focus();
    else if (refocus.current) {
      refocus.current = false;
      trigger.current?.focus();
    }
  }, [open]);
  const back = () => {
    refocus.current = true;
    setOpen(false);
  };

  if (!open) {
    return (
      <div>
        <button ref={trigger} type="button" className={className} disabled={disabled} onClick={() => setOpen(true)} data-testid={testId}>
          {label}
        </button>
        {hint}
      </div>
    );
  }
  return (
    <div
      role="alertdialog"
      aria-labelledby={`${id}-q`}
      className="confirm"
      data-testid="inline-confirm"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          back();
        }
      }}
    >
      <p id={`${id}-q`}>{question}</p>
      <div className="actions actions-start">
        <button
          type="button"
          className="btn btn-danger"
          disabled={disabled}
          onClick={() => {
            setOpen(false);
            onConfirm();
          }}
        >
          {confirmLabel}
        </button>
        <button ref={cancel} type="button" className="btn" onClick={back}>
          {t('button.cancel')}
        </button>
      </div>
    </div>
  );
}
