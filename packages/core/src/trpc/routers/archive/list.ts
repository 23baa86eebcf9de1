import { listArchive } from '../../../services/sessions/list-archive.ts';
import { authedProcedure } from '../../init.ts';
import { ZListArchiveRequest, ZListArchiveResponse } from './archive.types.ts';

export const listArchiveRoute = authedProcedure
  .input(ZListArchiveRequest)
  .output(ZListArchiveResponse)
  .query(({ ctx, input }) =>
    listArchive(
      { db: ctx.db },
      {
        ...(input.nodeId ? { nodeId: input.nodeId } : {}),
        ...(input.search ? { search: input.search } : {}),
        ...(input.executor ? { executor: input.executor } : {}),
        ...(input.cursor ? { cursor: input.cursor } : {}),
        ...(input.limit ? { limit: input.limit } : {}),
      },
    ),
  );
