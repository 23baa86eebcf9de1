import { createHash } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { createLoginLink } from '../../../services/auth/create-login-link.ts';
import { redeemLoginToken } from '../../../services/auth/redeem-login-token.ts';
import { resolveWebSession } from '../../../services/auth/resolve-web-session.ts';
import { createCaller } from '../../app-router.ts';
import { createContextInner } from '../../context.ts';
import { callerFor, signedInCaller } from '../../test-support.ts';
import { fileDatabase } from '../../../../../testkit/src/file-database.ts';

const { db } = await fileDatabase();

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const tokenOf = (url: string) => new URL(url).searchParams.get('token') ?? '';

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof Error)) throw new Error('expected a rejection');
  const e = err as { code?: string; userMessage?: string; message: string };
  return { code: e.code ?? 'none', message: e.userMessage ?? e.message };
}

describe('login links', () => {
  it('stores only the SHA-256 of a 32-byte token, expires in 15 minutes and makes the first user the owner', async () => {
    const now = new Date('2026-12-02T10:00:00Z');
    const link = await createLoginLink({ db, baseUrl: 'http://dash.example:3000/', now });
    const url = new URL(link.url);
    expect(url.origin + url.pathname).toBe('http://dash.example:3000/login');
    const token = tokenOf(link.url);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    const rows = await db.loginToken.findMany({ where: { userId: link.userId } });
    expect(rows).toHaveLength(1);
    expect(rows[0]?.tokenHash).toBe(sha(token));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]?.expiresAt.getTime()).toBe(now.getTime() + 15 * 60_000);
    const owner = await db.dashboardUser.findUniqueOrThrow({ where: { id: link.userId } });
    expect(owner.name).toBe('owner');
    // A later launcher link is for the same person; a Telegram user gets an account of their own.
    expect((await createLoginLink({ db, baseUrl: 'http://x' })).userId).toBe(link.userId);
    const tg = await createLoginLink({ db, baseUrl: 'http://x', telegramUserId: 4242, name: 'Ann' });
    expect(tg.userId).not.toBe(link.userId);
    expect((await createLoginLink({ db, baseUrl: 'http://x', telegramUserId: 4242n })).userId).toBe(tg.userId);
  });

  it('works exactly once, even when redeemed concurrently', async () => {
    const token = tokenOf((await createLoginLink({ db, baseUrl: 'http://x' })).url);
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => redeemLoginToken({ db, token })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await refusal(redeemLoginToken({ db, token }))).toEqual({ code: 'UNAUTHORIZED', message: 'login.used' });
  });

  it('refuses an expired link and an unknown one, and creates no session for them', async () => {
    const t0 = new Date('2026-12-02T10:00:00Z');
    const link = await createLoginLink({ db, baseUrl: 'http://x', now: t0 });
    const before = await db.webSession.count();
    const late = new Date(t0.getTime() + 15 * 60_000 + 1);
    expect(await refusal(redeemLoginToken({ db, token: tokenOf(link.url), now: late }))).toEqual({ code: 'UNAUTHORIZED', message: 'login.expired' });
    expect(await refusal(redeemLoginToken({ db, token: 'A'.repeat(43) }))).toEqual({ code: 'UNAUTHORIZED', message: 'login.unknown' });
    expect(await refusal(redeemLoginToken({ db, token: "'; drop table x" }))).toEqual({ code: 'UNAUTHORIZED', message: 'login.unknown' });
    expect(await db.webSession.count()).toBe(before);
  });

  it('a session stores the hash of its cookie secret and lasts 30 days', async () => {
    const now = new Date();
    const token = tokenOf((await createLoginLink({ db, baseUrl: 'http://x', now })).url);
    const web = await redeemLoginToken({ db, token, now });
    const row = await db.webSession.findUniqueOrThrow({ where: { id: web.sessionId } });
    expect(row.tokenHash).toBe(sha(web.secret));
    expect(JSON.stringify(row)).not.toContain(web.secret);
    expect(row.expiresAt.getTime()).toBe(now.getTime() + 30 * 24 * 3600_000);
    expect((await resolveWebSession({ db, secret: web.secret, now }))?.user.name).toBe('owner');
    expect(await resolveWebSession({ db, secret: web.secret, now: new Date(now.getTime() + 30 * 24 * 3600_000) })).toBeNull();
    expect(await resolveWebSession({ db, secret: web.csrfToken, now })).toBeNull();
  });
});

describe('auth router', () => {
  it('me is null without a cookie and names the user with one', async () => {
    const anon = createCaller(createContextInner({ db }));
    expect(await anon.auth.me()).toEqual({ user: null });
    const { caller } = await signedInCaller(db);
    expect((await caller.auth.me()).user?.name).toBe('owner');
  });

  it('logout needs the CSRF token, then revokes the session and clears the cookie', async () => {
    const { web } = await signedInCaller(db);
    const forged = await callerFor(db, web, { csrf: null });
    const e = await forged.caller.auth.logout().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TRPCError);
    expect((e as TRPCError).code).toBe('FORBIDDEN');
    expect(await resolveWebSession({ db, secret: web.secret })).not.toBeNull();

    const real = await callerFor(db, web);
    expect(await real.caller.auth.logout()).toEqual({ ok: true });
    expect(real.resHeaders.get('set-cookie')).toMatch(/^bria_session=; .*Max-Age=0/);
    expect(await resolveWebSession({ db, secret: web.secret })).toBeNull();
    const after = await callerFor(db, web);
    expect(await after.caller.auth.me()).toEqual({ user: null });
  });
});
