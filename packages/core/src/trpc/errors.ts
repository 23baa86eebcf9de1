import { TRPCError } from '@trpc/server';
import { isAppError, type AppError, type ErrorCode } from '../domain/errors.ts';

type TrpcCode = TRPCError['code'];

/** The one table from domain error codes to transport codes. */
export const APP_TO_TRPC = {
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  INVALID_INPUT: 'BAD_REQUEST',
  FORBIDDEN: 'FORBIDDEN',
  UNAUTHORIZED: 'UNAUTHORIZED',
  ILLEGAL_TRANSITION: 'CONFLICT',
  STALE_GENERATION: 'CONFLICT',
  SESSION_NOT_ACCEPTING: 'PRECONDITION_FAILED',
  LIFETIME_EXPIRED: 'PRECONDITION_FAILED',
  NODE_OFFLINE: 'SERVICE_UNAVAILABLE',
  EXECUTOR_DISABLED: 'PRECONDITION_FAILED',
  STALE_BUTTON: 'CONFLICT',
  RATE_LIMITED: 'TOO_MANY_REQUESTS',
  PERSIST_FAILED: 'SERVICE_UNAVAILABLE',
  NOT_IMPLEMENTED: 'NOT_IMPLEMENTED',
  INTERNAL: 'INTERNAL_SERVER_ERROR',
} as const satisfies Record<ErrorCode, TrpcCode>;

export const GENERIC_INTERNAL_MESSAGE = 'Something went wrong on the server.';

/** Prisma's known request errors, recognised by shape so this layer never imports the client. */
function prismaCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { name?: unknown; code?: unknown };
  return e.name === 'PrismaClientKnownRequestError' && typeof e.code === 'string' ? e.code : undefined;
}

/** Carries the domain code to the error formatter. */
export class MappedError extends TRPCError {
  constructor(
    code: TrpcCode,
    message: string,
    readonly appCode: ErrorCode,
    cause: unknown,
    /** The service's own words for the user (a catalog key or a sentence, e.g. the node's reason). */
    readonly userMessage: string | null = null,
  ) {
    super({ code, message, cause });
  }
}

function fromAppError(err: AppError): TRPCError {
  const code = APP_TO_TRPC[err.code];
  if (code === 'INTERNAL_SERVER_ERROR') return new MappedError(code, GENERIC_INTERNAL_MESSAGE, err.code, err);
  return new MappedError(code, err.userMessage ?? err.code, err.code, err, err.userMessage ?? null);
}

/**
 * Maps whatever a procedure threw. TRPCErrors raised on purpose (auth, CSRF, input validation)
 * pass through; domain and database errors get their codes; anything else becomes a generic
 * internal error whose details stay on the server (as the cause).
 */
export function toTRPCError(error: TRPCError): TRPCError {
  if (error instanceof MappedError) return error;
  const cause = error.cause;
  if (isAppError(cause)) return fromAppError(cause);
  const pcode = prismaCode(cause);
  if (pcode === 'P2002') return new MappedError('CONFLICT', 'CONFLICT', 'CONFLICT', cause);
  if (pcode === 'P2025') return new MappedError('NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND', cause);
  if (error.code !== 'INTERNAL_SERVER_ERROR') return error;
  return new MappedError('INTERNAL_SERVER_ERROR', GENERIC_INTERNAL_MESSAGE, 'INTERNAL', cause ?? error);
}
