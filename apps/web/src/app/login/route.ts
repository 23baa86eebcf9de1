import { redeemLoginToken } from '@bria/core/trpc';
import { isAppError } from '@bria/core/domain';
import { db, log } from '../../server/db.ts';
import { sessionCookie } from '../../server/session.ts';

export const dynamic = 'force-dynamic';

// Chat apps fetch links to draw previews; such a fetch must not use up the one-time link.
const PREVIEW_BOTS = /TelegramBot|Slackbot|Twitterbot|facebookexternalhit|WhatsApp|Discordbot|LinkedInBot|SkypeUriPreview/i;

const noStore = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

/** `GET /login?token=…`: redeems a one-time link, sets the session cookie and opens the dashboard. */
export async function GET(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const token = url.searchParams.get('token') ?? '';
  if (PREVIEW_BOTS.test(request.headers.get('user-agent') ?? '')) {
    return new Response('Bria login link', { status: 200, headers: { ...noStore, 'content-type': 'text/plain; charset=utf-8' } });
  }
  try {
    const web = await redeemLoginToken({ db: db(), token });
    log().info({ userId: web.userId }, 'web.login');
    return new Response(null, { status: 303, headers: { ...noStore, location: '/', 'set-cookie': sessionCookie(web.secret, request.url) } });
  } catch (err) {
    const reason = isAppError(err) && err.code === 'UNAUTHORIZED' ? (err.userMessage ?? 'login.unknown') : null;
    if (!reason) throw err;
    log().info({ reason }, 'web.login_refused');
    return new Response(null, { status: 303, headers: { ...noStore, location: `/signin?reason=${encodeURIComponent(reason)}` } });
  }
}
