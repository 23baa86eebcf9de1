'use client';
import { useI18n } from './i18n-context.tsx';

/** Grey bars where content is coming, instead of "…"; announced once as loading. */
export function Skeleton({ lines = 3 }: { lines?: number }) {
  const { t } = useI18n();
  return (
    <div className="skeleton" aria-busy="true" data-testid="skeleton">
      <span className="sr-only">{t('app.loading')}</span>
      {Array.from({ length: lines }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: placeholder bars have no identity
        <span key={i} className="skeleton-bar" aria-hidden="true" />
      ))}
    </div>
  );
}
