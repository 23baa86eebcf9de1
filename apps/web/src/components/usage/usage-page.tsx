'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useId, useState } from 'react';
import { useI18n } from '../i18n-context.tsx';
import { Skeleton } from '../skeleton.tsx';
import { useTRPC } from '../trpc.ts';
import { UsageDaysChart } from '../usage-chart.tsx';
import { useErrorText } from '../use-error-text.ts';
import { LimitsList } from './limits-list.tsx';
import { compact, dayBars, type Tokens, tokenTotal, usd } from './spend-format.ts';

const PERIODS = [7, 30, 90] as const;

/**
 * Tokens and their estimated cost across computers: totals, a bar per day stacked by computer, each
 * computer's usage limits, and the sessions that used the most. Figures come from the journals'
 * token counts; costs are estimates (price table or the user's prices).
 */
export function UsagePage() {
  const { t, locale } = useI18n();
  const trpc = useTRPC();
  const errorText = useErrorText();
  const id = useId();
  const [days, setDays] = useState<(typeof PERIODS)[number]>(30);
  const q = useQuery(trpc.usage.summary.queryOptions({ days }));
  const fmt = new Intl.NumberFormat(locale);
  const names = new Map((q.data?.nodes ?? []).map((n) => [n.id, n.name]));
  return (
    <>
      <div className="section-head">
        <h1 className="page-title grow">{t('spend.title')}</h1>
        <label className="inline" htmlFor={`${id}-p`}>
          {t('spend.period')}{' '}
          <select id={`${id}-p`} value={days} onChange={(e) => setDays(Number(e.target.value) as (typeof PERIODS)[number])} data-testid="usage-period">
            {PERIODS.map((d) => (
              <option key={d} value={d}>
                {t('spend.days', { days: d })}
              </option>
            ))}
          </select>
        </label>
      </div>
      {q.isPending && <Skeleton lines={6} />}
      {q.isError && !q.data && (
        <p role="alert" className="error">
          {errorText(q.error)}
        </p>
      )}
      {q.data && (
        <>
          <section className="card" aria-labelledby={`${id}-t`}>
            <h2 id={`${id}-t`}>{t('spend.totals')}</h2>
            <dl className="facts usage-totals" data-testid="usage-totals">
              <Spend label={t('spend.total')} s={q.data.totals} testId="usage-total" />
              <Spend label={t('spend.today')} s={q.data.today} testId="usage-today" />
              <div>
                <dt>{t('spend.turns')}</dt>
                <dd>{fmt.format(q.data.totals.turns)}</dd>
              </div>
            </dl>
            <TokenKinds tokens={q.data.totals.tokens} />
            {q.data.unpricedModels.length > 0 && (
              <p className="muted small" data-testid="usage-unpriced">
                {t('spend.unpriced', { tokens: fmt.format(q.data.totals.unpricedTokens), models: q.data.unpricedModels.map((m) => m || '?').join(', ') })}
              </p>
            )}
            <p className="muted small">{t('spend.estimateNote')}</p>
          </section>
          <section className="card block" aria-labelledby={`${id}-d`}>
            <h2 id={`${id}-d`}>{t('spend.byDay')}</h2>
            {q.data.days.length === 0 ? (
              <p className="muted">{t('spend.empty')}</p>
            ) : (
              <>
                <UsageDaysChart
                  bars={dayBars(
                    q.data.days,
                    q.data,
                    q.data.nodes.map((n) => n.id),
                  )}
                  nodes={q.data.nodes}
                  label={t('spend.byDayLabel', { days })}
                />
                <details className="block">
                  <summary>{t('spend.byDayTable')}</summary>
                  <div className="table-wrap">
                    <table className="table" data-testid="usage-days-table">
                      <thead>
                        <tr>
                          <th>{t('spend.day')}</th>
                          <th>{t('spend.computer')}</th>
                          <th className="num">{t('spend.tokens')}</th>
                          <th className="num">{t('spend.cost')}</th>
                        </tr>
                      </thead>
                      <tbody>
                        {q.data.days.map((d) => (
                          <tr key={`${d.day}-${d.nodeId}`}>
                            <td>{d.day}</td>
                            <td>{names.get(d.nodeId) ?? '?'}</td>
                            <td className="num">{fmt.format(tokenTotal(d.tokens))}</td>
                            <td className="num">{cost(d, locale)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                </details>
              </>
            )}
          </section>
          <section className="card block" aria-labelledby={`${id}-l`}>
            <h2 id={`${id}-l`}>{t('spend.limits')}</h2>
            <LimitsList limits={q.data.limits} />
          </section>
          <section className="card block" aria-labelledby={`${id}-s`}>
            <h2 id={`${id}-s`}>{t('spend.sessions')}</h2>
            {q.data.sessions.length === 0 ? (
              <p className="muted">{t('spend.empty')}</p>
            ) : (
              <div className="table-wrap">
                <table className="table" data-testid="usage-sessions">
                  <thead>
                    <tr>
                      <th>{t('spend.session')}</th>
                      <th>{t('spend.computer')}</th>
                      <th className="num">{t('spend.turns')}</th>
                      <th className="num">{t('spend.input')}</th>
                      <th className="num">{t('spend.output')}</th>
                      <th className="num">{t('spend.cacheRead')}</th>
                      <th className="num">{t('spend.cacheWrite')}</th>
                      <th className="num">{t('spend.cost')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {q.data.sessions.map((s) => (
                      <tr key={s.sessionId}>
                        <td>
                          <Link href={`/sessions/${s.sessionId}`}>{s.title ?? t('archive.untitled')}</Link>{' '}
                          <span className="muted small">{t(`executor.${s.executor}`)}</span>
                        </td>
                        <td>{names.get(s.nodeId) ?? '?'}</td>
                        <td className="num">{fmt.format(s.turns)}</td>
                        <td className="num">{compact(s.tokens.input, locale)}</td>
                        <td className="num">{compact(s.tokens.output, locale)}</td>
                        <td className="num">{compact(s.tokens.cacheRead, locale)}</td>
                        <td className="num">{compact(s.tokens.cacheWrite, locale)}</td>
                        <td className="num">{cost(s, locale)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </>
  );
}

/** "≈ $1.23", "≥ $1.23" when some tokens had no price, "—" when none had one. */
function cost(s: { costUsd: number; unpricedTokens: number; tokens: Tokens }, locale: string): string {
  if (s.unpricedTokens > 0 && s.unpricedTokens >= tokenTotal(s.tokens)) return '—';
  return `${s.unpricedTokens > 0 ? '≥' : '≈'} ${usd(s.costUsd, locale)}`;
}

function Spend({ label, s, testId }: { label: string; s: { costUsd: number; unpricedTokens: number; tokens: Tokens }; testId: string }) {
  const { locale } = useI18n();
  return (
    <div>
      <dt>{label}</dt>
      <dd data-testid={testId}>
        {cost(s, locale)} <span className="muted small">({compact(tokenTotal(s.tokens), locale)})</span>
      </dd>
    </div>
  );
}

export function TokenKinds({ tokens }: { tokens: Tokens }) {
  const { t, locale } = useI18n();
  const fmt = new Intl.NumberFormat(locale);
  return (
    <dl className="facts" data-testid="token-kinds">
      {(['input', 'output', 'cacheRead', 'cacheWrite'] as const).map((k) => (
        <div key={k}>
          <dt>{t(`spend.${k}`)}</dt>
          <dd>{fmt.format(tokens[k])}</dd>
        </div>
      ))}
    </dl>
  );
}

export { cost as costText };
