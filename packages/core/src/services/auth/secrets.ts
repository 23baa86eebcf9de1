import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, URL-safe: login tokens, session secrets and CSRF tokens. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of two strings that may differ in length. */
export function secretsEqual(a: string, b: string): boolean {
  const x = Buffer.from(sha256Hex(a), 'hex');
  const y = Buffer.from(sha256Hex(b), 'hex');
  return timingSafeEqual(x, y) && a.length === b.length;
}

export const LOGIN_LINK_TTL_MS = 15 * 60_000;
export const WEB_SESSION_TTL_MS = 30 * 24 * 60 * 60_000;

/**
 * How long a browser session lasts: `BRIA_WEB_SESSION_DAYS` (1–365) days, 30 when unset. A value
 * outside that range or not a whole number is refused at start (`zServerEnv`), so it never silently
 * falls back here.
 */
export function webSessionTtlMs(env: Record<string, string | undefined> = process.env): number {
  const days = Number(env.BRIA_WEB_SESSION_DAYS ?? '30');
  return Number.isInteger(days) && days >= 1 && days <= 365 ? days * 24 * 60 * 60_000 : WEB_SESSION_TTL_MS;
}
/**
 * How long a browser session may go without a request before it ends (issue 30):
 * `BRIA_WEB_IDLE_HOURS` (1–8760), 168 (7 days) when unset — a dashboard that can run commands on
 * your computers should not stay signed in on a machine nobody used for a week. An open tab's live
 * stream does not count as use. Like `webSessionTtlMs`, an invalid value is refused at start.
 */
export const WEB_IDLE_MS = 168 * 60 * 60_000;
export function webIdleMs(env: Record<string, string | undefined> = process.env): number {
  const hours = Number(env.BRIA_WEB_IDLE_HOURS ?? '168');
  return Number.isInteger(hours) && hours >= 1 && hours <= 8760 ? hours * 60 * 60_000 : WEB_IDLE_MS;
}
/** `lastSeenAt` is written at most this often (one small UPDATE a minute per active browser). */
export const LAST_SEEN_WRITE_MS = 60_000;

/** Name of the httpOnly cookie holding the browser session's secret. */
export const SESSION_COOKIE = 'bria_session';
/** Header mutations must carry, holding the CSRF token the page received at render. */
export const CSRF_HEADER = 'x-bria-csrf';
