export { createLoginLink, type CreateLoginLinkOptions, type LoginLinkDto } from './create-login-link.ts';
export { redeemLoginToken, type LoginRefusal, type NewWebSessionDto, type RedeemLoginTokenOptions } from './redeem-login-token.ts';
export { resolveWebSession, type SessionUser, type WebSessionContext, webSessionStillLive } from './resolve-web-session.ts';
export { logout } from './logout.ts';
export { CSRF_HEADER, LOGIN_LINK_TTL_MS, SESSION_COOKIE, WEB_SESSION_TTL_MS, secretsEqual, WEB_IDLE_MS, webIdleMs, webSessionTtlMs } from './secrets.ts';
export { signOutEverywhere } from './sign-out-everywhere.ts';
