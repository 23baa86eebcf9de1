// Public surface of the executor layer for the rest of the node agent.
export { claudeDriver, claudeConfigDir } from './claude-driver.ts';
export { codexDriver, codexHome } from './codex-driver.ts';
export type { CloseEvidence, Mismatch } from './launch.ts';
export { nativeIdRefusal } from './native-id.ts';
export { type DeliverResult, SessionHost, type SessionHostOptions } from './session-host.ts';
export {
  type Env,
  type Executor,
  type ExecutorDriver,
  ExecutorError,
  type HookLaunch,
  type HostEvent,
  type PermissionMode,
  type SessionIdentity,
} from './types.ts';
export { Tmux } from '../tmux/tmux.ts';
