// Use cases shared by the dashboard, the bot and the launcher.
export * from './auth/index.ts';
export * from './nodes/index.ts';
export * from './sessions/index.ts';
export * from './git/index.ts';
export * from './settings/index.ts';
export * from './telegram/index.ts';
export { closeDb, createDb, type Db } from './db-handle.ts';
export * from './push/index.ts';
export * from './usage/index.ts';
export * from './transcribe/index.ts';
