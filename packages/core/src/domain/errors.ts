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
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface AppErrorOptions {
  /** For logs and developers; never contains message texts, finals, tokens or paths. */
  message: string;
  /** Safe text (or i18n key) for the user; absent means a generic text for the code. */
  userMessage?: string;
  cause?: unknown;
}

export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly userMessage: string | undefined;

  constructor(code: ErrorCode, options: AppErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.userMessage = options.userMessage;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/** Anything thrown becomes an AppError; unknown errors become INTERNAL with the original as cause. */
export function toAppError(value: unknown): AppError {
  if (isAppError(value)) return value;
  return new AppError('INTERNAL', { message: 'unexpected error', cause: value });
}

/**
 * Whether retrying the same operation later can succeed without anything else changing. Used by
 * callers that must decide between "wait and retry" and "tell the user".
 */
export function isRetryable(code: ErrorCode): boolean {
  switch (code) {
    case 'NODE_OFFLINE':
    case 'RATE_LIMITED':
    case 'PERSIST_FAILED':
    case 'CONFLICT':
      return true;
    case 'NOT_FOUND':
    case 'INVALID_INPUT':
    case 'FORBIDDEN':
    case 'UNAUTHORIZED':
    case 'ILLEGAL_TRANSITION':
    case 'STALE_GENERATION':
    case 'SESSION_NOT_ACCEPTING':
    case 'LIFETIME_EXPIRED':
    case 'EXECUTOR_DISABLED':
    case 'STALE_BUTTON':
    case 'INTERNAL':
      return false;
    default:
      return code satisfies never;
  }
}
