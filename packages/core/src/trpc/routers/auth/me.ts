import { publicProcedure } from '../../init.ts';
import { ZMeResponse } from './auth.types.ts';

export const meRoute = publicProcedure.output(ZMeResponse).query(({ ctx }) => ({ user: ctx.user }));
