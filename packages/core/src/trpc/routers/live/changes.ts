import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { webSessionStillLive } from '../../../services/auth/resolve-web-session.ts';
import { authedProcedure } from '../../init.ts';

export const ZChange = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('session'), id: z.uuid() }),
  z.object({ kind: z.literal('node'), id: z.uuid() }),
  /** Sent when the feed (re)starts listening: anything may have changed meanwhile, reload. */
  z.object({ kind: z.literal('resync') }),
]);

/** A quiet stream's session is read again this often (a busy one before every change it sends). */
export const STREAM_RECHECK_MS = 10_000;

/**
 * Ids of what changed, as Postgres announces them (triggers on Session, Message, SessionEvidence,
 * Node, AgentToken); pages reload what they show. Carried over SSE.
 * The browser session is checked again before every change sent and every `STREAM_RECHECK_MS`
 * (issue 30): after a sign-out (here or everywhere), expiry or idle expiry the stream ends with
 * UNAUTHORIZED, and the page's reconnect is refused at the route (401).
 */
export const changesRoute = authedProcedure.subscription(async function* ({ ctx, signal }) {
  if (!ctx.changes) throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'live updates are not configured' });
  const sessionId = ctx.session?.id;
  if (!sessionId) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'auth.required' });
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort);
  let ended = false;
  const live = async () => {
    if (!ended && !(await webSessionStillLive({ db: ctx.db, sessionId }).catch(() => true))) {
      ended = true;
      stop.abort();
    }
    return !ended;
  };
  const timer = setInterval(() => void live(), STREAM_RECHECK_MS);
  try {
    for await (const change of ctx.changes.stream(stop.signal)) {
      if (!(await live())) break;
      yield ZChange.parse(change);
    }
  } finally {
    clearInterval(timer);
    signal?.removeEventListener('abort', onAbort);
  }
  if (ended) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'auth.required' });
});
