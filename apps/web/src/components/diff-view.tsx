'use client';
import { useState } from 'react';
import { type DiffLine, diffLines, foldDiff } from './diff-lines.ts';
import { useI18n } from './i18n-context.tsx';
import { type Lang, languageOf, tokenize } from './syntax.ts';

/** A code line's text after its +/−/space column, coloured by the file's language (syntax.ts). */
function LineText({ line, lang }: { line: DiffLine; lang: Lang | null }) {
  if (lang === null || (line.kind !== 'add' && line.kind !== 'del' && line.kind !== 'context')) return <>{line.text || ' '}</>;
  return (
    <>
      {line.text.slice(0, 1) || ' '}
      {tokenize(line.text.slice(1), lang).map((t, i) =>
        t.kind === 'plain' ? (
          t.text
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: a line's tokens have no identity but their place
          <span key={i} className={`tok tok-${t.kind}`}>
            {t.text}
          </span>
        ),
      )}
    </>
  );
}

/**
 * One changed file: its path with +/− (binary files say so), and its unified diff when unfolded,
 * coloured by line kind and, for a known language, by token; a long diff shows its first lines
 * until "Show all".
 */
export function DiffView(p: { path: string; added: number | null; removed: number | null; diff: string | null; clipped: boolean; onLoad: () => void }) {
  const { t } = useI18n();
  const [all, setAll] = useState(false);
  const lines = p.diff ? diffLines(p.diff) : [];
  const { shown, hidden } = foldDiff(lines, all);
  const lang = languageOf(p.path);
  return (
    <details className="diff-file">
      <summary className="diff-summary">
        <span className="mono diff-path">{p.path}</span>{' '}
        {p.added === null ? (
          <span className="muted small">{t('changes.binary')}</span>
        ) : (
          <span className="small" data-testid="numstat">
            <span className="diff-plus">+{p.added}</span> <span className="diff-minus">−{p.removed}</span>
          </span>
        )}
      </summary>
      {p.diff === null ? (
        <p className="muted small">
          {t('changes.diffLeftOut')}{' '}
          <button type="button" className="btn btn-small" onClick={p.onLoad}>
            {t('changes.loadDiff')}
          </button>
        </p>
      ) : (
        <>
          <pre className="diff" data-testid="diff" data-lang={lang ?? undefined}>
            {shown.map((l, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a diff's lines have no identity but their place
              <span key={i} className={`diff-${l.kind}`}>
                <LineText line={l} lang={lang} />
              </span>
            ))}
          </pre>
          {hidden > 0 && (
            <button type="button" className="btn btn-small" onClick={() => setAll(true)} data-testid="diff-show-all">
              {t('changes.showAll', { n: lines.length })}
            </button>
          )}
          {p.clipped && <p className="muted small">{t('changes.clipped')}</p>}
        </>
      )}
    </details>
  );
}
