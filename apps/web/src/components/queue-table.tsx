'use client';
import type { AnyKey } from '../i18n/catalog.ts';
import { useI18n } from './i18n-context.tsx';
import type { ConversationItem } from './types.ts';

/** Each message's place in the durable queue and its outcome. */
export function QueueTable({ items }: { items: ConversationItem[] }) {
  const { t, locale } = useI18n();
  const time = new Intl.DateTimeFormat(locale, { timeStyle: 'medium' });
  return (
    <section aria-labelledby="queue-title" className="block">
      <h2 id="queue-title">{t('queue.title')}</h2>
      {items.length === 0 ? (
        <p className="muted">{t('queue.empty')}</p>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="queue">
            <thead>
              <tr>
                <th scope="col">{t('queue.seq')}</th>
                <th scope="col">{t('queue.status')}</th>
                <th scope="col">{t('queue.at')}</th>
                <th scope="col">{t('queue.detail')}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((m) => (
                <tr key={m.id} data-testid="queue-row" data-status={m.status} data-attachment-failure={m.attachmentFailure ?? undefined}>
                  <td>{m.seq}</td>
                  <td>
                    {m.attachmentFailure ? (
                      <span className="pill pill-attachment" data-testid="queue-attachment-failed">
                        {t(`queue.attachment.${m.attachmentFailure}`)}
                      </span>
                    ) : (
                      <span className={`pill pill-${m.status}`}>{t(`status.${m.status}` as AnyKey)}</span>
                    )}
                  </td>
                  <td>
                    <time dateTime={m.createdAt}>{time.format(new Date(m.createdAt))}</time>
                  </td>
                  <td className="muted small">{m.attachmentFailure ? t('queue.attachment.note') : (m.outcomeDetail ?? '')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
