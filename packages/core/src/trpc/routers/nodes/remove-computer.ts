import { issueToken } from '../../../services/nodes/issue-token.ts';
import { removeComputer } from '../../../services/nodes/remove-computer.ts';
import { authedProcedure } from '../../init.ts';
import { ZIssueTokenResponse, ZNodeRequest, ZRemoveComputerResponse } from './nodes.types.ts';

/** Removes a computer (its closed sessions stay in the archive); refused while it has open sessions. */
export const removeComputerRoute = authedProcedure
  .input(ZNodeRequest)
  .output(ZRemoveComputerResponse)
  .mutation(({ ctx, input }) => removeComputer({ db: ctx.db, nodeId: input.nodeId }));

/** A new token (and the command to run) for a computer whose token was revoked or lost; it replaces the others. */
export const issueTokenRoute = authedProcedure
  .input(ZNodeRequest)
  .output(ZIssueTokenResponse)
  .mutation(({ ctx, input }) =>
    issueToken({ db: ctx.db, nodeId: input.nodeId, hubPublicUrl: ctx.hubPublicUrl, bundle: ctx.agentBundle(), hubCa: ctx.hubCa() }),
  );
