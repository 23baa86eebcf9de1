import { describe, expect, it } from 'vitest';
import { fileDatabase } from '../../../../testkit/src/file-database.ts';
import { AppError } from '../../domain/errors.ts';
import { createLoginLink } from './create-login-link.ts';
import { redeemLoginToken } from './redeem-login-token.ts';
import { resolveWebSession, webSessionLive, webSessionStillLive } from './resolve-web-session.ts';
import { WEB_IDLE_MS, webIdleMs } from './secrets.ts';
import { signOutEverywhere } from './sign-out-everywhere.ts';

/** Issue 30: dashboard sign-ins end when idle, and "Sign out everywhere" leaves no usable link. */
const { db } = await fileDatabase();
const tokenOf = (url: string) => new URL(url).searchParams.get('token') ?? '';
const HOUR = 3_600_000;

async function signIn(now: Date) {
  const link = await createLoginLink({ db, baseUrl: 'http://127.0.0.1:3000', now });
  return redeemLoginToken({ db, token: tokenOf(link.url), now });
}

describe('idle expiry of dashboard sign-ins', () => {
  it.each([
    { row: { revokedAt: null, expiresAt: new Date(10 * HOUR), lastSeenAt: new Date(0) }, now: 2 * HOUR, live: true },
    { row: { revokedAt: null, expiresAt: new Date(10 * HOUR), lastSeenAt: new Date(0) }, now: 3 * HOUR, live: false },
    { row: { revokedAt: null, expiresAt: new Date(HOUR), lastSeenAt: new Date(0) }, now: HOUR, live: false },
    { row: { revokedAt: new Date(0), expiresAt: new Date(10 * HOUR), lastSeenAt: new Date(0) }, now: 1, live: false },
  ])('webSessionLive($now) with a 3 h idle bound → $live', ({ row, now, live }) => {
    expect(webSessionLive(row, new Date(now), 3 * HOUR)).toBe(live);
  });

  it('defaults to 7 days (BRIA_WEB_IDLE_HOURS)', () => {
    expect(webIdleMs({})).toBe(WEB_IDLE_MS);
    expect(WEB_IDLE_MS).toBe(7 * 24 * HOUR);
    expect(webIdleMs({ BRIA_WEB_IDLE_HOURS: '2' })).toBe(2 * HOUR);
  });

  it('a request records the use; a session idle beyond the bound is refused, though its 30 days are not over', async () => {
    const t0 = new Date('2026-12-01T10:00:00Z');
    const web = await signIn(t0);
    const idleMs = 2 * HOUR;
    const t1 = new Date(t0.getTime() + idleMs - 60_000);
    expect(await resolveWebSession({ db, secret: web.secret, now: t1, idleMs })).not.toBeNull();
    // The row says when it was last used (re-read).
    expect((await db.webSession.findUniqueOrThrow({ where: { id: web.sessionId } })).lastSeenAt).toEqual(t1);
    // Used again within the bound of that use: still fine, and a stream's check does not count as use.
    const t2 = new Date(t1.getTime() + idleMs - 60_000);
    expect(await webSessionStillLive({ db, sessionId: web.sessionId, now: t2, idleMs })).toBe(true);
    expect((await db.webSession.findUniqueOrThrow({ where: { id: web.sessionId } })).lastSeenAt).toEqual(t1);
    const t3 = new Date(t1.getTime() + idleMs + 1);
    expect(await resolveWebSession({ db, secret: web.secret, now: t3, idleMs })).toBeNull();
    expect(await webSessionStillLive({ db, sessionId: web.sessionId, now: t3, idleMs })).toBe(false);
  });
});

describe('Sign out everywhere', () => {
  it('ends every sign-in and deletes the login links not used yet', async () => {
    const now = new Date();
    const a = await signIn(now);
    const pending = await createLoginLink({ db, baseUrl: 'http://127.0.0.1:3000', now });
    const r = await signOutEverywhere({ db, now });
    expect(r.ended).toBeGreaterThanOrEqual(1);
    expect(r.linksDeleted).toBeGreaterThanOrEqual(1);
    expect(await db.loginToken.count({ where: { usedAt: null } })).toBe(0);
    expect(await resolveWebSession({ db, secret: a.secret, now })).toBeNull();
    // The link sent before the sign-out signs nobody in.
    const refused = await redeemLoginToken({ db, token: tokenOf(pending.url), now }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).userMessage).toBe('login.unknown');
  });
});
