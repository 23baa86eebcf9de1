import { getSettings, updateSettings } from '../../../services/settings/settings.ts';
import { authedProcedure } from '../../init.ts';
import { ZSettingsView, ZUpdateSettingsRequest } from './settings.types.ts';

export const getSettingsRoute = authedProcedure.output(ZSettingsView).query(({ ctx }) => getSettings({ db: ctx.db }));

/** The same settings row the bot reads: lifetime for new and resumed sessions, resume suggestions, who may talk to it. */
export const updateSettingsRoute = authedProcedure
  .input(ZUpdateSettingsRequest)
  .output(ZSettingsView)
  .mutation(({ ctx, input }) => updateSettings({ db: ctx.db }, input));
