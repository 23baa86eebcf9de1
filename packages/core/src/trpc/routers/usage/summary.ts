import { getUsageSummary } from '../../../services/usage/index.ts';
import { authedProcedure } from '../../init.ts';
import { ZUsageSummaryRequest, ZUsageSummaryResponse } from './usage.types.ts';

/** Tokens and estimated cost per day, computer and session; every computer's limit state. */
export const usageSummaryRoute = authedProcedure
  .input(ZUsageSummaryRequest)
  .output(ZUsageSummaryResponse)
  .query(({ ctx, input }) => getUsageSummary({ db: ctx.db }, input));
