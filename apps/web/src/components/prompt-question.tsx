'use client';
import { useId, useState } from 'react';
import { useI18n } from './i18n-context.tsx';
import { questionAnswers, questionsOf } from './prompt-text.ts';
import type { PromptItem } from './types.ts';

/** A question of the agent: its options as radio buttons (checkboxes when several may be chosen), the user's own words, one Send. */
export function PromptQuestion({ prompt, busy, onSend }: { prompt: PromptItem; busy: boolean; onSend: (answers: Record<string, string | string[]>) => void }) {
  const { t } = useI18n();
  const id = useId();
  const questions = questionsOf(prompt.toolInput);
  const [picked, setPicked] = useState<Record<string, string[]>>({});
  const [typed, setTyped] = useState<Record<string, string>>({});
  const answers = questionAnswers(questions, picked, typed);
  const pick = (q: string, label: string, multi: boolean, on: boolean) =>
    setPicked((p) => ({ ...p, [q]: multi ? (on ? [...(p[q] ?? []), label] : (p[q] ?? []).filter((l) => l !== label)) : [label] }));

  return (
    <form
      className="prompt-question"
      onSubmit={(e) => {
        e.preventDefault();
        if (answers && !busy) onSend(answers);
      }}
    >
      {questions.map((q, qi) => (
        <fieldset key={q.question} className="stack" data-testid="prompt-question">
          <legend>
            {q.header ? `${q.header}: ` : ''}
            {q.question}
          </legend>
          {q.options.map((o) => (
            <label key={o.label} className="choice">
              <input
                type={q.multiSelect ? 'checkbox' : 'radio'}
                name={`${id}-q${qi}`}
                value={o.label}
                checked={(picked[q.question] ?? []).includes(o.label)}
                onChange={(e) => pick(q.question, o.label, q.multiSelect, e.target.checked)}
              />
              <span>
                {o.label}
                {o.description && <span className="muted small"> — {o.description}</span>}
              </span>
            </label>
          ))}
          <label className="small" htmlFor={`${id}-own${qi}`}>
            {t('prompt.ownAnswer')}
          </label>
          <input
            id={`${id}-own${qi}`}
            type="text"
            maxLength={4000}
            value={typed[q.question] ?? ''}
            onChange={(e) => setTyped((p) => ({ ...p, [q.question]: e.target.value }))}
          />
        </fieldset>
      ))}
      <div className="actions actions-start">
        <button type="submit" className="btn btn-primary" disabled={busy || answers === null}>
          {t('prompt.send')}
        </button>
      </div>
    </form>
  );
}
