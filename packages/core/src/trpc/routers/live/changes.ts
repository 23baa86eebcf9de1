import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { authedProcedure } from '../../init.ts';

export const ZChange = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('session'), id: z.uuid() }),
  z.object({ kind: z.literal('node'), id: z.uuid() }),
  /** Sent when the feed (re)starts listening: anything may have changed meanwhile, reload. */
  z.object({ kind: z.literal('resync') }),
]);

/**
 * Ids of what changed, as Postgres announces them (triggers on Session, Message, SessionEvidence,
 * Node, AgentToken); pages reload what they show. Carried over SSE.
 */
export const changesRoute = authedProcedure.subscription(async function* ({ ctx, signal }) {
  if (!ctx.changes) throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'live updates are not configured' });
  for await (const change of ctx.changes.stream(signal ?? new AbortController().signal)) yield ZChange.parse(change);
});
