import { createCallerFactory, router } from './init.ts';
import { authRouter } from './routers/auth/index.ts';
import { nodesRouter } from './routers/nodes/index.ts';

export const appRouter = router({ auth: authRouter, nodes: nodesRouter });
export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
