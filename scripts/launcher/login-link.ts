import type { Db } from '../../packages/core/src/db/index.ts';
import { createLoginLink } from '../../packages/core/src/services/auth/index.ts';

/** A one-time dashboard login link for first use without the bot (valid 15 minutes, single use). */
export async function firstUseLoginLink(db: Db, baseUrl: string): Promise<string> {
  const { url } = await createLoginLink({ db, baseUrl, name: 'owner' });
  return url;
}
