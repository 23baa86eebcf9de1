import { appRouter, createContext } from '@bria/core/trpc';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { hubPublicUrl, webEnv } from '../../../../env.ts';
import { changeFeed, db, log } from '../../../../server/db.ts';

export const dynamic = 'force-dynamic';

function handler(req: Request): Promise<Response> {
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: ({ resHeaders }) =>
      createContext({ db: db(), headers: req.headers, resHeaders, hubPublicUrl: hubPublicUrl(webEnv(), req.headers.get('host')), changes: changeFeed() }),
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
