import { listDashboardNodes } from '../../../services/nodes/list-dashboard-nodes.ts';
import { authedProcedure } from '../../init.ts';
import { ZListNodesResponse } from './nodes.types.ts';

export const listRoute = authedProcedure.output(ZListNodesResponse).query(async ({ ctx }) => ({
  nodes: await listDashboardNodes({ db: ctx.db, bundle: ctx.agentBundle(), hubPublicUrl: ctx.hubPublicUrl, hubCa: ctx.hubCa() }),
}));
