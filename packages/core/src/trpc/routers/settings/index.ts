import { router } from '../../init.ts';
import { getSettingsRoute, updateSettingsRoute } from './get.ts';

export const settingsRouter = router({ get: getSettingsRoute, update: updateSettingsRoute });
