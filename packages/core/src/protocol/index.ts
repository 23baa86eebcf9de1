export * from './messages.ts';
export * from './backoff.ts';
export * from './heartbeat.ts';
export * from './event-frames.ts';
export * from './session-commands.ts';
export * from './session-events.ts';
export * from './read-journal.ts';
export * from './git.ts';
export * from './cli-text.ts';
export * from './command-results.ts';
export * from './session-choices.ts';
export * from './session-activity.ts';
export * from './live-frames.ts';
// The prompt rules both ends apply (pure, import-free; the agent may import only this package).
export { type AnswerMisfit, type AnswerShape, type AnswerTarget, answerFits } from '../domain/prompt-machine.ts';
export { type AlwaysAllowDecision, type AlwaysAllowOffer, type AlwaysAllowRefusal, alwaysAllowOffer } from '../domain/always-allow.ts';
export {
  type CliExecutor,
  type CliVersionVerdict,
  CLI_NAMES,
  cliVersionVerdict,
  cliVersionWarning,
  compareCliVersions,
  parseCliVersion,
  VERIFIED_CLI_VERSIONS,
} from '../domain/cli-versions.ts';
