import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { authedProcedure } from '../../init.ts';

export const ZDraftOut = z.object({ sessionId: z.uuid(), messageId: z.uuid(), v: z.number().int(), cut: z.number().int().nonnegative(), text: z.string() });

/**
 * The answer being written for a session's running turn, as the agent reads it from the CLI's
 * screen (docs/architecture.md, "Drafts and the terminal"). Ephemeral: never stored; the journal's
 * final replaces it. Carried over SSE like `changes`.
 */
export const draftRoute = authedProcedure.input(z.object({ sessionId: z.uuid() })).subscription(async function* ({ ctx, input, signal }) {
  if (!ctx.changes) throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'live updates are not configured' });
  for await (const d of ctx.changes.drafts(input.sessionId, signal ?? new AbortController().signal)) yield ZDraftOut.parse(d);
});
