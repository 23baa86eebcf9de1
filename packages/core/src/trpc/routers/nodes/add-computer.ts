import { addComputer } from '../../../services/nodes/add-computer.ts';
import { authedProcedure } from '../../init.ts';
import { ZAddComputerRequest, ZAddComputerResponse } from './nodes.types.ts';

export const addComputerRoute = authedProcedure
  .input(ZAddComputerRequest)
  .output(ZAddComputerResponse)
  .mutation(({ ctx, input }) => addComputer({ db: ctx.db, name: input.name, hubPublicUrl: ctx.hubPublicUrl, bundle: ctx.agentBundle(), hubCa: ctx.hubCa() }));
