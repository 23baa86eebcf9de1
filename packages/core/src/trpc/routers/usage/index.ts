import { router } from '../../init.ts';
import { getUsageSettingsRoute, updateUsageSettingsRoute } from './settings.ts';
import { usageSummaryRoute } from './summary.ts';

export const usageRouter = router({ summary: usageSummaryRoute, settings: getUsageSettingsRoute, updateSettings: updateUsageSettingsRoute });
