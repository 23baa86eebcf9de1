import { getUsageSettings, updateUsageSettings } from '../../../services/usage/index.ts';
import { authedProcedure } from '../../init.ts';
import { ZUpdateUsageSettingsRequest, ZUsageSettingsView } from './usage.types.ts';

export const getUsageSettingsRoute = authedProcedure.output(ZUsageSettingsView).query(({ ctx }) => getUsageSettings({ db: ctx.db }));

/** Price overrides and budgets; a changed budget lets held messages go when it allows. */
export const updateUsageSettingsRoute = authedProcedure
  .input(ZUpdateUsageSettingsRequest)
  .output(ZUsageSettingsView)
  .mutation(({ ctx, input }) => updateUsageSettings({ db: ctx.db }, input));
