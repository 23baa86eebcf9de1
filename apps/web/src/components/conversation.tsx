'use client';
import { useI18n } from './i18n-context.tsx';
import { Markdown } from './markdown.tsx';
import type { ConversationItem } from './types.ts';

const FAILED = new Set(['terminal_failed', 'failed', 'unknown']);

/** User turns and final answers from what Bria stored; interrupted or failed turns are marked. */
export function Conversation({ items, total, discovered }: { items: ConversationItem[]; total: number; discovered: boolean }) {
  const { t } = useI18n();
  return (
    <section aria-labelledby="conv-title" className="block">
      <h2 id="conv-title">{t('conv.title')}</h2>
      {discovered && <p className="muted small">{t('conv.discovered')}</p>}
      {total > items.length && <p className="muted small">{t('conv.older', { shown: items.length, total })}</p>}
      {items.length === 0 && <p className="muted">{t('conv.empty')}</p>}
      <ol className="conversation" data-testid="conversation">
        {items.map((m) => (
          <li key={m.id} className="turn" data-testid="turn" data-status={m.status}>
            <div className="bubble bubble-user">
              <p className="who">
                {t('conv.you')}
                {m.mainMessageId && <span className="muted"> · {t('conv.followUp')}</span>}
                {m.attachmentCount > 0 && <span className="muted"> · {t('conv.attachments', { count: m.attachmentCount })}</span>}
              </p>
              <div className="plain">{m.text}</div>
            </div>
            {m.finalText !== null && (
              <div className="bubble bubble-agent" data-testid="final">
                <p className="who">{t('conv.agent')}</p>
                <Markdown text={m.finalText} />
              </div>
            )}
            {FAILED.has(m.status) && (
              <p className="turn-mark" role="note" data-testid="turn-failed">
                {t('conv.interrupted')}: {t(`status.${m.status}` as 'status.failed')}{m.outcomeDetail ? ` (${m.outcomeDetail})` : ''}
              </p>
            )}
            {m.finalText === null && (m.status === 'accepted' || m.status === 'leased') && <p className="muted small">{t('conv.waiting')}</p>}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Each message's place in the durable queue and its outcome. */
export function QueueTable({ items }: { items: ConversationItem[] }) {
  const { t, locale } = useI18n();
  const time = new Intl.DateTimeFormat(locale, { timeStyle: 'medium' });
  return (
    <section aria-labelledby="queue-title" className="block">
      <h2 id="queue-title">{t('queue.title')}</h2>
      {items.length === 0 ? <p className="muted">{t('queue.empty')}</p> : (
        <div className="table-wrap">
          <table className="table" data-testid="queue">
            <thead>
              <tr><th scope="col">{t('queue.seq')}</th><th scope="col">{t('queue.status')}</th><th scope="col">{t('queue.at')}</th><th scope="col">{t('queue.detail')}</th></tr>
            </thead>
            <tbody>
              {items.map((m) => (
                <tr key={m.id} data-testid="queue-row" data-status={m.status}>
                  <td>{m.seq}</td>
                  <td><span className={`pill pill-${m.status}`}>{t(`status.${m.status}` as 'status.failed')}</span></td>
                  <td><time dateTime={m.createdAt}>{time.format(new Date(m.createdAt))}</time></td>
                  <td className="muted small">{m.outcomeDetail ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
