export { getUsageSettings, MAX_BUDGET_USD, type PriceBookDto, updateUsageSettings, type UsageSettingsDto } from './usage-settings.ts';
export { getUsageLimits, getUsageSummary, type SpendDto, USAGE_MAX_DAYS, type UsageSummaryDto } from './usage-summary.ts';
