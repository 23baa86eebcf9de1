export { createDb, type Db } from './client.ts';
export * from './repos/nodes.ts';
export * from './repos/agent-commands.ts';
export * from './repos/agent-events.ts';
export { LISTEN_RETRY_MS, PgListener, type PgListenerOptions } from './pg-listener.ts';
