import { initTRPC, TRPCError } from '@trpc/server';
import { secretsEqual } from '../services/auth/secrets.ts';
import type { Context } from './context.ts';
import { MappedError, toTRPCError } from './errors.ts';

const t = initTRPC.context<Context>().create({
  // Pings keep proxies from closing a quiet live-update stream; the client reconnects after silence.
  sse: { ping: { enabled: true, intervalMs: 15_000 }, client: { reconnectAfterInactivityMs: 40_000 } },
  errorFormatter({ shape, error }) {
    // Stacks stay on the server; clients get the code and a safe message (or i18n key).
    const { stack: _stack, ...data } = shape.data;
    // `userMessage` tells a service's sentence apart from tRPC's own texts (input validation).
    const mapped = error instanceof MappedError ? error : null;
    return { ...shape, data: { ...data, appCode: mapped?.appCode ?? null, userMessage: mapped?.userMessage ?? null } };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Error mapping happens here, once, around every procedure. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw toTRPCError(result.error);
  return result;
});

export const publicProcedure = t.procedure.use(mapErrors);

export const authedProcedure = publicProcedure.use(({ ctx, type, next }) => {
  if (!ctx.user || !ctx.session) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'auth.required' });
  // Mutations must prove they come from a page we rendered: the cookie alone is not enough.
  if (type === 'mutation' && !(ctx.csrfHeader && secretsEqual(ctx.csrfHeader, ctx.session.csrfToken))) {
    throw new TRPCError({ code: 'FORBIDDEN', message: 'auth.csrf' });
  }
  return next({ ctx: { user: ctx.user, session: ctx.session } });
});
