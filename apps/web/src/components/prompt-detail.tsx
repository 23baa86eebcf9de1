'use client';
import { useI18n } from './i18n-context.tsx';
import { toolDetail } from './prompt-text.ts';
import type { PromptItem } from './types.ts';

/** What the tool will do: the command, the file and its first lines, or the file and a small −/+ diff. */
export function PromptDetail({ prompt }: { prompt: Pick<PromptItem, 'toolName' | 'toolInput' | 'justification'> }) {
  const { t } = useI18n();
  const d = toolDetail(prompt.toolName, prompt.toolInput);
  return (
    <div className="prompt-detail" data-testid="prompt-detail">
      {d.kind === 'command' && (
        <>
          {d.description && <p className="small muted">{d.description}</p>}
          <pre className="command small" data-testid="prompt-command">
            {d.command}
          </pre>
        </>
      )}
      {(d.kind === 'write' || d.kind === 'edit' || (d.kind === 'other' && d.file)) && (
        <p className="small">
          <span className="muted">{t('prompt.file')}: </span>
          <span className="mono" data-testid="prompt-file">
            {d.file}
          </span>
        </p>
      )}
      {d.kind === 'write' && (
        <pre className="command small" title={t('prompt.firstLines')}>
          {d.head.join('\n')}
          {d.more > 0 && `\n${t('prompt.moreLines', { n: d.more })}`}
        </pre>
      )}
      {d.kind === 'edit' && (
        <pre className="command small diff" title={t('prompt.change')} data-testid="prompt-diff">
          {d.diff.map((l, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: lines of one fixed diff, never reordered
            <span key={i} className={l.sign === '+' ? 'diff-add' : 'diff-del'}>{`${l.sign} ${l.text}\n`}</span>
          ))}
          {d.more > 0 && t('prompt.moreLines', { n: d.more })}
        </pre>
      )}
      {d.kind === 'other' && <pre className="command small">{d.json}</pre>}
      {prompt.justification && (
        <p className="small" data-testid="prompt-justification">
          <span className="muted">{t('prompt.justification')}: </span>
          {prompt.justification}
        </p>
      )}
    </div>
  );
}
