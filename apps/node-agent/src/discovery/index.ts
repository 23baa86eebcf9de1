export { DiscoveryIndex, type DiscoveryIndexOptions } from './discovery-index.ts';
export { scanSessions, type ScanSessionsOptions } from './scan-sessions.ts';
export type { DiscoveredSession, Executor, FileProblems, ScanResult, ScanStats } from './session-types.ts';
export { type SessionDiff, SessionWatcher, type WatchOptions, watchSessions } from './watch-sessions.ts';
