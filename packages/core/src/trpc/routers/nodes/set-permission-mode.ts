import { setPermissionMode } from '../../../services/nodes/set-permission-mode.ts';
import { authedProcedure } from '../../init.ts';
import { ZSetPermissionModeRequest, ZSetPermissionModeResponse } from './nodes.types.ts';

export const setPermissionModeRoute = authedProcedure
  .input(ZSetPermissionModeRequest)
  .output(ZSetPermissionModeResponse)
  .mutation(({ ctx, input }) => setPermissionMode({ db: ctx.db, nodeId: input.nodeId, executor: input.executor, mode: input.mode }));
