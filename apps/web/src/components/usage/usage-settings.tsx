'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { useI18n } from '../i18n-context.tsx';
import { useTRPC } from '../trpc.ts';
import { useErrorText } from '../use-error-text.ts';

/** A budget field: empty = no budget; otherwise US dollars (a dot or a comma for the cents). */
export function parseBudget(text: string): number | null | 'invalid' {
  const v = text.trim().replace(',', '.');
  if (v === '') return null;
  if (!/^\d{1,7}(\.\d{1,4})?$/.test(v)) return 'invalid';
  return Number(v);
}

/**
 * Budgets (per session, per UTC day) and the prices the cost estimate uses: the repository's table
 * is shown as it is; the user's prices are JSON, model → four prices per million tokens.
 */
export function UsageSettings() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const errorText = useErrorText();
  const id = useId();
  const q = useQuery(trpc.usage.settings.queryOptions());
  const [draft, setDraft] = useState<{ session?: string; day?: string; prices?: string } | null>(null);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const stored = q.data;
  const session = draft?.session ?? (stored?.budgetSessionUsd == null ? '' : String(stored.budgetSessionUsd));
  const day = draft?.day ?? (stored?.budgetDayUsd == null ? '' : String(stored.budgetDayUsd));
  const prices = draft?.prices ?? (stored ? JSON.stringify(stored.priceOverrides, null, 2) : '{}');
  const edit = (patch: NonNullable<typeof draft>) => setDraft((d) => ({ ...d, ...patch }));
  const save = useMutation(
    trpc.usage.updateSettings.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.usage.settings.queryKey(), data);
        void queryClient.invalidateQueries({ queryKey: trpc.usage.summary.queryKey() });
        setDraft(null);
        setStatus({ ok: true, text: t('settings.saved') });
      },
      onError: (err) => setStatus({ ok: false, text: errorText(err) }),
    }),
  );
  const submit = () => {
    const s = parseBudget(session);
    const d = parseBudget(day);
    if (s === 'invalid' || d === 'invalid') return setStatus({ ok: false, text: t('spend.budgetInvalid') });
    let parsed: unknown;
    try {
      parsed = JSON.parse(prices.trim() === '' ? '{}' : prices);
    } catch {
      return setStatus({ ok: false, text: t('spend.pricesInvalid') });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return setStatus({ ok: false, text: t('spend.pricesInvalid') });
    setStatus(null);
    save.mutate({ budgetSessionUsd: s, budgetDayUsd: d, priceOverrides: parsed as Record<string, unknown> });
  };
  const ready = hydrated && stored !== undefined;
  return (
    <section className="card stack block" aria-labelledby={`${id}-h`} data-testid="usage-settings">
      <h2 id={`${id}-h`}>{t('spend.settings')}</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <div className="grid-2">
          <div>
            <label htmlFor={`${id}-s`}>{t('spend.budgetSession')}</label>
            <input
              id={`${id}-s`}
              inputMode="decimal"
              value={session}
              onChange={(e) => edit({ session: e.target.value })}
              disabled={!ready}
              data-testid="budget-session"
            />
          </div>
          <div>
            <label htmlFor={`${id}-d`}>{t('spend.budgetDay')}</label>
            <input id={`${id}-d`} inputMode="decimal" value={day} onChange={(e) => edit({ day: e.target.value })} disabled={!ready} data-testid="budget-day" />
          </div>
        </div>
        <p className="muted small">{t('spend.budgetHelp')}</p>
        <div>
          <label htmlFor={`${id}-p`}>{t('spend.prices')}</label>
          <textarea
            id={`${id}-p`}
            rows={5}
            className="mono"
            value={prices}
            onChange={(e) => edit({ prices: e.target.value })}
            disabled={!ready}
            data-testid="price-overrides"
          />
          <p className="muted small">{t('spend.pricesHelp', { date: stored?.prices.asOf ?? '', source: stored?.prices.source ?? '' })}</p>
          {stored && (
            <details>
              <summary className="small">{t('spend.priceTable', { date: stored.prices.asOf })}</summary>
              <pre className="small mono">
                {Object.entries(stored.prices.table)
                  .map(([m, p]) => `${m}: ${p.input} / ${p.output} / ${p.cacheRead} / ${p.cacheWrite}`)
                  .join('\n')}
              </pre>
            </details>
          )}
        </div>
        <div className="actions">
          {status && (
            <span role={status.ok ? 'status' : 'alert'} className={`${status.ok ? 'ok-text' : 'error'} grow`} data-testid="usage-settings-status">
              {status.text}
            </span>
          )}
          <button type="submit" className="btn btn-primary" disabled={save.isPending || !ready}>
            {t('spend.save')}
          </button>
        </div>
      </form>
    </section>
  );
}
