import { findComputer } from '../../../services/nodes/find-computer.ts';
import { authedProcedure } from '../../init.ts';
import { ZFindComputerRequest, ZFindComputerResponse } from './nodes.types.ts';

/** Whether the id in a computer page's URL is a listed, removed or unknown computer. */
export const findComputerRoute = authedProcedure
  .input(ZFindComputerRequest)
  .output(ZFindComputerResponse)
  .query(({ ctx, input }) => findComputer({ db: ctx.db, nodeId: input.nodeId }));
