import { appRouter, createContext, readCookie, resolveWebSession, SESSION_COOKIE } from '@bria/core/trpc';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { agentBundle, attachmentsDir, hubCa, hubListen, hubPublicUrl, transcribeConfig, webEnv } from '../../../../env.ts';
import { changeFeed, db, log } from '../../../../server/db.ts';

export const dynamic = 'force-dynamic';

/**
 * A stream's status line is sent before its procedure runs, so tRPC would answer 200 and put the
 * refusal inside the stream; live streams are refused here with a real 401 instead.
 */
async function refuseAnonymousStream(req: Request): Promise<Response | null> {
  if (!new URL(req.url).pathname.startsWith('/api/trpc/live.')) return null;
  const web = await resolveWebSession({ db: db(), secret: readCookie(req.headers.get('cookie'), SESSION_COOKIE) });
  if (web) return null;
  return Response.json({ error: { message: 'auth.required', code: -32001, data: { code: 'UNAUTHORIZED', httpStatus: 401 } } }, { status: 401 });
}

async function handler(req: Request): Promise<Response> {
  const refused = await refuseAnonymousStream(req);
  if (refused) return refused;
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: ({ resHeaders }) =>
      createContext({
        db: db(),
        headers: req.headers,
        resHeaders,
        hubPublicUrl: hubPublicUrl(webEnv(), req.headers.get('host')),
        hubListen: hubListen(webEnv()),
        agentBundle: () => agentBundle(webEnv()),
        hubCa: () => hubCa(webEnv()),
        changes: changeFeed(),
        attachmentsDir: attachmentsDir(webEnv()),
        ...(transcribeConfig(webEnv()) ? { transcribe: transcribeConfig(webEnv()) } : {}),
      }),
    onError({ error, path }) {
      // Only unexpected failures are logged; the cause's message may name internals, never user text.
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        const cause = error.cause as { name?: string; message?: string } | undefined;
        log().error({ path, cause: cause?.name, err: cause?.message?.slice(0, 300) }, 'web.trpc_internal_error');
      }
    },
  });
}

export { handler as GET, handler as POST };
