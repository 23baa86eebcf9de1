import type { Db } from '../db/client.ts';
import { createLoginLink } from '../services/auth/create-login-link.ts';
import { redeemLoginToken, type NewWebSessionDto } from '../services/auth/redeem-login-token.ts';
import { CSRF_HEADER, SESSION_COOKIE } from '../services/auth/secrets.ts';
import { createCaller } from './app-router.ts';
import { createContext } from './context.ts';

/** Logs in the way a browser does (link → session) and returns a caller built from real request headers. */
export async function signedInCaller(db: Db, opts: { csrf?: string | null; hubPublicUrl?: string } = {}) {
  const link = await createLoginLink({ db, baseUrl: 'http://127.0.0.1:3000' });
  const web = await redeemLoginToken({ db, token: new URL(link.url).searchParams.get('token') ?? '' });
  return { web, ...(await callerFor(db, web, opts)) };
}

export async function callerFor(db: Db, web: NewWebSessionDto | null, opts: { csrf?: string | null; hubPublicUrl?: string } = {}) {
  const headers = new Headers();
  if (web) headers.set('cookie', `other=1; ${SESSION_COOKIE}=${web.secret}`);
  const csrf = opts.csrf === undefined ? web?.csrfToken : opts.csrf;
  if (csrf) headers.set(CSRF_HEADER, csrf);
  const resHeaders = new Headers();
  const ctx = await createContext({ db, headers, resHeaders, hubPublicUrl: opts.hubPublicUrl });
  return { caller: createCaller(ctx), resHeaders, ctx };
}
