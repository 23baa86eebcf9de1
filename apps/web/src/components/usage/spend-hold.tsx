'use client';
import { useI18n } from '../i18n-context.tsx';
import { usd } from './spend-format.ts';

export type SpendHold = { kind: 'usage_limit'; resetsAt: string } | { kind: 'budget_reached'; scope: 'session' | 'day'; budgetUsd: number; spentUsd: number };

export type BudgetWarning = { scope: 'session' | 'day'; budgetUsd: number; spentUsd: number };

/**
 * Above the conversation: the session's messages wait for a usage limit's reset, or a budget; or,
 * before that, a budget is at 80 % or more (the same warning Telegram sends once, standing here).
 */
export function SpendHoldNotice({ hold, warning }: { hold: SpendHold | null; warning?: BudgetWarning | null }) {
  const { t, locale } = useI18n();
  if (!hold && warning) {
    const vars = { spent: usd(warning.spentUsd, locale), budget: usd(warning.budgetUsd, locale) };
    return (
      <div className="notice" role="status" data-testid="spend-warning" data-scope={warning.scope}>
        {t(warning.scope === 'session' ? 'spend.warn.budget_session' : 'spend.warn.budget_day', vars)}
      </div>
    );
  }
  if (!hold) return null;
  const time = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
  const text =
    hold.kind === 'usage_limit'
      ? t('spend.hold.usage_limit', { time: time.format(Date.parse(hold.resetsAt)) })
      : t(hold.scope === 'session' ? 'spend.hold.budget_session' : 'spend.hold.budget_day', {
          spent: usd(hold.spentUsd, locale),
          budget: usd(hold.budgetUsd, locale),
        });
  return (
    <div className="warning" role="status" data-testid="spend-hold" data-kind={hold.kind}>
      {text}
    </div>
  );
}
