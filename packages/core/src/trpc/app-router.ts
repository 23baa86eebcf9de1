import { createCallerFactory, router } from './init.ts';
import { archiveRouter } from './routers/archive/index.ts';
import { authRouter } from './routers/auth/index.ts';
import { liveRouter } from './routers/live/index.ts';
import { nodesRouter } from './routers/nodes/index.ts';
import { pushRouter } from './routers/push/index.ts';
import { sessionsRouter } from './routers/sessions/index.ts';
import { settingsRouter } from './routers/settings/index.ts';
import { usageRouter } from './routers/usage/index.ts';

export const appRouter = router({
  auth: authRouter,
  nodes: nodesRouter,
  sessions: sessionsRouter,
  archive: archiveRouter,
  settings: settingsRouter,
  live: liveRouter,
  push: pushRouter,
  usage: usageRouter,
});
export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
