import type { Db } from '../../packages/core/src/db/index.ts';

/**
 * A one-time dashboard login link for first use without the bot. The auth service is loaded
 * lazily so the launcher does not pull the dashboard's code into its own start-up path.
 */
export async function firstUseLoginLink(db: Db, baseUrl: string): Promise<string | undefined> {
  const mod = (await import('../../packages/core/src/services/auth/index.ts').catch(() => undefined)) as
    | { createLoginLink?: (o: { db: Db; baseUrl: string; name?: string }) => Promise<{ url: string } | string> }
    | undefined;
  if (!mod?.createLoginLink) return undefined;
  const r = await mod.createLoginLink({ db, baseUrl, name: 'owner' });
  return typeof r === 'string' ? r : r.url;
}
