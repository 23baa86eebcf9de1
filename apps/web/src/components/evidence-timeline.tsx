'use client';
import { foldEvidence } from './evidence-fold.ts';
import { evidenceWords } from './evidence-words.ts';
import { useI18n } from './i18n-context.tsx';
import { promptEvidenceText } from './prompt-text.ts';
import type { EvidenceItem } from './types.ts';

/**
 * Every recorded transition in plain words, by whom and when; the raw record one click away.
 * Repeated technical rows (e.g. outdated reports set aside after a restart) read as one line with a count.
 */
export function EvidenceTimeline({ items }: { items: EvidenceItem[] }) {
  const { t, locale } = useI18n();
  const time = new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'medium' });
  const actor = (a: string) => (['user', 'agent', 'hub', 'timer'].includes(a) ? t(`actor.${a}` as 'actor.user') : a);
  return (
    <section aria-labelledby="ev-title" className="block">
      <h2 id="ev-title">{t('evidence.title')}</h2>
      {items.length === 0 && <p className="muted">{t('evidence.empty')}</p>}
      <ol className="timeline" data-testid="evidence">
        {foldEvidence(items)
          .reverse()
          .map(({ item: e, first, count }) => {
            const prompt = promptEvidenceText(e.event, e.evidence, t);
            return (
              <li key={e.id} data-testid="evidence-row" data-event={e.event} data-count={count}>
                <div className="tl-head">
                  <strong data-testid="evidence-words">{evidenceWords(e.event, locale)}</strong>
                  {count > 1 && (
                    <span className="badge" data-testid="evidence-count" title={t('evidence.times', { count })}>
                      ×{count}
                    </span>
                  )}
                  {e.fromState !== e.toState && e.toState && (
                    <span className="small">
                      {e.fromState ? t(`state.${e.fromState}`) : '∅'} → {t(`state.${e.toState}`)}
                    </span>
                  )}
                  <span className="muted small">{t('evidence.requestedBy', { actor: actor(e.actor) })}</span>
                  <time className="muted small" dateTime={e.createdAt}>
                    {time.format(new Date(e.createdAt))}
                  </time>
                </div>
                {prompt && (
                  <p className="small" data-testid="evidence-prompt">
                    {prompt}
                  </p>
                )}
                <details>
                  <summary className="small">{t('evidence.raw')}</summary>
                  <p className="small mono" data-testid="evidence-name">
                    {e.event}
                  </p>
                  {count > 1 && (
                    <p className="small" data-testid="evidence-folded">
                      {t('evidence.folded', { count, first: time.format(new Date(first.createdAt)) })}
                    </p>
                  )}
                  {e.evidence !== null && e.evidence !== undefined && <pre className="command small">{JSON.stringify(e.evidence, null, 2)}</pre>}
                </details>
              </li>
            );
          })}
      </ol>
    </section>
  );
}
