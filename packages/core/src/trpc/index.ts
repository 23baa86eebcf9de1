export { appRouter, createCaller, type AppRouter } from './app-router.ts';
export {
  createContext,
  createContextInner,
  readCookie,
  DEFAULT_HUB_PUBLIC_URL,
  DEFAULT_HUB_LISTEN,
  type HubListen,
  type Context,
  type InnerContextOptions,
} from './context.ts';
export { APP_TO_TRPC, GENERIC_INTERNAL_MESSAGE } from './errors.ts';
// The web shell's login route and the launcher/bot need these; they also live in services/auth.
export {
  createLoginLink,
  redeemLoginToken,
  resolveWebSession,
  logout,
  CSRF_HEADER,
  SESSION_COOKIE,
  LOGIN_LINK_TTL_MS,
  WEB_SESSION_TTL_MS,
  webSessionTtlMs,
  type LoginLinkDto,
  type LoginRefusal,
  type NewWebSessionDto,
  type SessionUser,
  type WebSessionContext,
} from '../services/auth/index.ts';
export { countNodes } from '../services/nodes/index.ts';
// The web shell keeps one LISTEN connection per process for the live subscription.
export { ChangeFeed, type Change } from '../db/repos/change-feed.ts';
