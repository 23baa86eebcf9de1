import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { notifyTerminal } from '../../../db/repos/terminal-notices.ts';
import { TERMINAL_INPUT_MAX } from '../../../protocol/index.ts';
import { terminalInput } from '../../../services/sessions/terminal-input.ts';
import { authedProcedure } from '../../init.ts';

/** The hub is reminded this often that someone watches (the agent stops after 30 s without). */
const RENEW_MS = 10_000;

export const ZPaneOut = z.object({
  seq: z.number().int().nonnegative(),
  kind: z.enum(['snapshot', 'output']),
  /** base64 of UTF-8 bytes (pieces may split a character; the terminal decodes across them). */
  data: z.string(),
  cols: z.number().int().positive().optional(),
  rows: z.number().int().positive().optional(),
});

/**
 * The session's pane as drawn, for the live terminal: a snapshot, then the output tmux pushes
 * (docs/architecture.md, "Drafts and the terminal"). Signed-in users only; nothing is stored.
 */
export const terminalRoute = authedProcedure.input(z.object({ sessionId: z.uuid() })).subscription(async function* ({ ctx, input, signal }) {
  const feed = ctx.changes;
  if (!feed) throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'live updates are not configured' });
  const aborted = signal ?? new AbortController().signal;
  // The first `open` asks for a snapshot (this viewer starts from the screen as it is); renewals do not.
  const open = (snapshot: boolean) =>
    notifyTerminal(ctx.db, { sessionId: input.sessionId, op: 'open', ...(snapshot ? { data: 'snapshot' } : {}) }).catch(() => undefined);
  const renew = setInterval(() => void open(false), RENEW_MS);
  try {
    const stream = feed.panes(input.sessionId, aborted, () => void open(true));
    for await (const p of stream) yield ZPaneOut.parse(p);
  } finally {
    clearInterval(renew);
  }
});

/** Keys typed into the live terminal (the page's explicit switch is on); refused while a dialog is open. */
export const terminalInputRoute = authedProcedure
  .input(z.object({ sessionId: z.uuid(), data: z.string().min(1).max(TERMINAL_INPUT_MAX) }))
  .output(z.object({ ok: z.literal(true) }))
  .mutation(async ({ ctx, input }) => {
    await terminalInput({ db: ctx.db }, input);
    return { ok: true as const };
  });
