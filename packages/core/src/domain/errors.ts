/**
 * The one application error. Services throw it; the tRPC layer maps `code` to its own codes in a
 * single table elsewhere, so nothing here knows about transports.
 */
export const ERROR_CODES = [
  'NOT_FOUND',
  'CONFLICT',
  'INVALID_INPUT',
  'FORBIDDEN',
  'UNAUTHORIZED',
  'ILLEGAL_TRANSITION',
  'STALE_GENERATION',
  'SESSION_NOT_ACCEPTING',
  'LIFETIME_EXPIRED',
  'NODE_OFFLINE',
  'EXECUTOR_DISABLED',
  'STALE_BUTTON',
  'RATE_LIMITED',
  'PERSIST_FAILED',
  /** An action this build does not offer yet (a front end says so instead of a generic error). */
  'NOT_IMPLEMENTED',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Why an INVALID_INPUT refusal refused, for a front end that explains each reason in its own words
 * (the bot). The code stays INVALID_INPUT, so the transport code and the dashboard's text do not
 * change; `cli_text` comes with the catalog key of the sentence as `userMessage`.
 */
export const INPUT_REFUSALS = ['empty', 'too_long', 'control_characters', 'cli_text'] as const;
export type InputRefusal = (typeof INPUT_REFUSALS)[number];

export interface AppErrorOptions {
  /** For logs and developers; never contains message texts, finals, tokens or paths. */
  message: string;
  /** Safe text (or i18n key) for the user; absent means a generic text for the code. */
  userMessage?: string;
  cause?: unknown;
  /** With INVALID_INPUT: which rule the input broke. */
  reason?: InputRefusal;
}

export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly userMessage: string | undefined;
  readonly reason: InputRefusal | undefined;

  constructor(code: ErrorCode, options: AppErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.userMessage = options.userMessage;
    this.reason = options.reason;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
