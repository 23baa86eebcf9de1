import { getUsageLimits, getUsageSummary } from '../../../services/usage/index.ts';
import { authedProcedure } from '../../init.ts';
import { ZUsageLimitsResponse, ZUsageSummaryRequest, ZUsageSummaryResponse } from './usage.types.ts';

/** Tokens and estimated cost per day, computer and session; every computer's limit state. */
export const usageSummaryRoute = authedProcedure
  .input(ZUsageSummaryRequest)
  .output(ZUsageSummaryResponse)
  .query(({ ctx, input }) => getUsageSummary({ db: ctx.db }, input));

/** Every computer's CLIs with the usage-limit state their journals last showed. */
export const usageLimitsRoute = authedProcedure.output(ZUsageLimitsResponse).query(async ({ ctx }) => ({ limits: await getUsageLimits({ db: ctx.db }) }));
