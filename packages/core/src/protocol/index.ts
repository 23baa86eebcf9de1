export * from './messages.ts';
export * from './backoff.ts';
export * from './session-commands.ts';
export * from './session-events.ts';
export * from './read-journal.ts';
export * from './cli-text.ts';
export * from './command-results.ts';
export * from './session-choices.ts';
