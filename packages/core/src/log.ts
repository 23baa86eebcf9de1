import pino, { type Logger } from 'pino';

/**
 * Structured logs. Fields are allow-listed by callers (ids, states, counts); these paths are
 * redacted as a second line of defence so a stray object never leaks a secret or a user's text.
 */
const REDACT = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'password',
  '*.password',
  'databaseUrl',
  '*.databaseUrl',
  'url',
  '*.url',
  'text',
  '*.text',
  'finalText',
  '*.finalText',
  'path',
  '*.path',
];

export type { Logger };

export function createLogger(opts: { name: string; level?: string; destination?: NodeJS.WritableStream }): Logger {
  return pino(
    { name: opts.name, level: opts.level ?? 'info', redact: { paths: REDACT, censor: '[redacted]' }, base: { pid: process.pid } },
    (opts.destination as pino.DestinationStream | undefined) ?? pino.destination(1),
  );
}

/** Removes credentials from a database URL for messages shown to people. */
export function safeDbUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable database URL)';
  }
}
