import { signOutEverywhere } from '../../../services/auth/sign-out-everywhere.ts';
import { SESSION_COOKIE } from '../../../services/auth/secrets.ts';
import { authedProcedure } from '../../init.ts';
import { ZSignOutEverywhereResponse } from './auth.types.ts';

/** Ends every dashboard sign-in, this browser's included (its cookie is cleared too). */
export const signOutEverywhereRoute = authedProcedure.output(ZSignOutEverywhereResponse).mutation(async ({ ctx }) => {
  const r = await signOutEverywhere({ db: ctx.db });
  ctx.resHeaders?.append('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`);
  return { ok: true as const, ended: r.ended };
});
