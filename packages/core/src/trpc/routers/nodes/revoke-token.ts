import { revokeToken } from '../../../services/nodes/revoke-token.ts';
import { authedProcedure } from '../../init.ts';
import { ZRevokeTokenRequest, ZRevokeTokenResponse } from './nodes.types.ts';

export const revokeTokenRoute = authedProcedure
  .input(ZRevokeTokenRequest)
  .output(ZRevokeTokenResponse)
  .mutation(({ ctx, input }) => revokeToken({ db: ctx.db, tokenId: input.tokenId }));
