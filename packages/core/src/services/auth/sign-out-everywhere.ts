import type { Db } from '../../db/client.ts';

/**
 * "Sign out everywhere": ends every browser session of the dashboard (this one included); their
 * cookies stop working at once. Login links already sent stay usable until they expire (15 min).
 */
export async function signOutEverywhere(opts: { db: Db; now?: Date }): Promise<{ ended: number }> {
  const r = await opts.db.webSession.updateMany({ where: { revokedAt: null }, data: { revokedAt: opts.now ?? new Date() } });
  return { ended: r.count };
}
