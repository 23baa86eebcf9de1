import { setExecutors } from '../../../services/nodes/set-executors.ts';
import { authedProcedure } from '../../init.ts';
import { ZSetExecutorsRequest, ZSetExecutorsResponse } from './nodes.types.ts';

export const setExecutorsRoute = authedProcedure
  .input(ZSetExecutorsRequest)
  .output(ZSetExecutorsResponse)
  .mutation(({ ctx, input }) => setExecutors({ db: ctx.db, nodeId: input.nodeId, executors: input.executors }));
