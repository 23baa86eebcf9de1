import { router } from '../../init.ts';
import { getUsageSettingsRoute, updateUsageSettingsRoute } from './settings.ts';
import { usageLimitsRoute, usageSummaryRoute } from './summary.ts';

export const usageRouter = router({
  summary: usageSummaryRoute,
  limits: usageLimitsRoute,
  settings: getUsageSettingsRoute,
  updateSettings: updateUsageSettingsRoute,
});
