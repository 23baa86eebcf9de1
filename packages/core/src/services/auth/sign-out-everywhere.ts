import type { Db } from '../../db/client.ts';

/**
 * "Sign out everywhere": ends every browser session of the dashboard (this one included); their
 * cookies stop working at once, and open live streams end at their next check
 * (`webSessionStillLive`). Login links not used yet are deleted too (issue 30): a link sent before
 * the sign-out (say, to a chat someone else can read) must not sign anyone in after it.
 */
export async function signOutEverywhere(opts: { db: Db; now?: Date }): Promise<{ ended: number; linksDeleted: number }> {
  const [sessions, links] = await opts.db.$transaction([
    opts.db.webSession.updateMany({ where: { revokedAt: null }, data: { revokedAt: opts.now ?? new Date() } }),
    opts.db.loginToken.deleteMany({ where: { usedAt: null } }),
  ]);
  return { ended: sessions.count, linksDeleted: links.count };
}
