import { resolveWebSession, SESSION_COOKIE, type WebSessionContext, webSessionTtlMs } from '@bria/core/trpc';
import { cookies } from 'next/headers';
import { redirect } from 'next/navigation';
import { cache } from 'react';
import { webEnv } from '../env.ts';
import { db } from './db.ts';

/** The current browser session (once per request), or null. */
export const currentSession = cache(async (): Promise<WebSessionContext | null> => {
  const secret = (await cookies()).get(SESSION_COOKIE)?.value;
  return resolveWebSession({ db: db(), secret });
});

/** Pages behind the login call this; without a session the visitor goes to the sign-in page. */
export async function requireSession(): Promise<WebSessionContext> {
  const session = await currentSession();
  if (!session) redirect('/signin');
  return session;
}

/** Cookies are Secure when the dashboard is reached over HTTPS (directly or via its public URL). */
export function sessionCookie(secret: string, requestUrl: string): string {
  const publicUrl = webEnv().BRIA_PUBLIC_URL;
  const secure = new URL(requestUrl).protocol === 'https:' || publicUrl?.startsWith('https:') === true;
  const maxAge = Math.floor(webSessionTtlMs() / 1000);
  return `${SESSION_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
}
