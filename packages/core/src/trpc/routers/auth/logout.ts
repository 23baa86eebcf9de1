import { logout } from '../../../services/auth/logout.ts';
import { SESSION_COOKIE } from '../../../services/auth/secrets.ts';
import { authedProcedure } from '../../init.ts';
import { ZLogoutResponse } from './auth.types.ts';

export const logoutRoute = authedProcedure.output(ZLogoutResponse).mutation(async ({ ctx }) => {
  await logout({ db: ctx.db, sessionId: ctx.session.id });
  ctx.resHeaders?.append('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`);
  return { ok: true as const };
});
