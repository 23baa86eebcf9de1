export * from './messages.ts';
export * from './backoff.ts';
