export { createDb, type Db } from './client.ts';
export * from './repos/nodes.ts';
export * from './repos/agent-commands.ts';
export * from './repos/agent-events.ts';
