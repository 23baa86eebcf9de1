import { revokeWebSession } from '../../db/repos/auth.ts';
import type { Db } from '../../db/client.ts';

/** Ends one browser session; its cookie stops working at once. */
export async function logout(opts: { db: Db; sessionId: string; now?: Date }): Promise<void> {
  await revokeWebSession(opts.db, { id: opts.sessionId, now: opts.now ?? new Date() });
}
