import { countNodes } from '@bria/core/trpc';
import { webEnv } from '../../../env.ts';
import { db } from '../../../server/db.ts';

export const dynamic = 'force-dynamic';

async function hubUp(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1500), cache: 'no-store' });
    const body = (await res.json()) as { ok?: unknown };
    return res.ok && body.ok === true;
  } catch {
    return false;
  }
}

/** Public liveness: database and hub reachability and node counts, nothing else. */
export async function GET(): Promise<Response> {
  const [counts, hub] = await Promise.all([
    countNodes({ db: db() }).catch(() => null),
    hubUp(webEnv().BRIA_HUB_HEALTH_URL),
  ]);
  const body = { ok: counts !== null && hub, db: counts !== null, hub, nodesOnline: counts?.online ?? null, nodesTotal: counts?.total ?? null };
  return Response.json(body, { status: body.ok ? 200 : 503, headers: { 'cache-control': 'no-store' } });
}
