export * from './errors.ts';
export * from './lifetime.ts';
export * from './queue.ts';
export * from './refusals.ts';
export * from './retry-schedule.ts';
export * from './session-machine.ts';
export { selfLoops, toMermaid } from './diagram.ts';
export * from './outcome-notice.ts';
export * from './agent-facts.ts';
