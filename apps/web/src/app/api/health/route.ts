import { readFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { countNodes } from '@bria/core/trpc';
import { webEnv } from '../../../env.ts';
import { db } from '../../../server/db.ts';

export const dynamic = 'force-dynamic';

/**
 * A hub with a certificate (BRIA_TLS_CERT) is asked over https with that certificate trusted
 * (BRIA_HUB_CA, set by the launcher); on 127.0.0.1 its chain is checked, not its name, which is the
 * server's public one (the same rule as the launcher's own agent, hub-client.ts).
 */
function getJson(url: string, ca: Buffer | undefined): Promise<{ ok: boolean; body: { ok?: unknown } }> {
  const u = new URL(url);
  if (u.protocol !== 'https:') {
    return fetch(url, { signal: AbortSignal.timeout(1500), cache: 'no-store' }).then(async (res) => ({
      ok: res.ok,
      body: (await res.json()) as { ok?: unknown },
    }));
  }
  const loopback = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(u.hostname);
  return new Promise((resolve, reject) => {
    const req = httpsGet(url, { timeout: 1500, ...(ca ? { ca } : {}), ...(loopback ? { checkServerIdentity: () => undefined } : {}) }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        try {
          resolve({ ok: res.statusCode === 200, body: JSON.parse(text) as { ok?: unknown } });
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

async function hubUp(url: string, caFile: string | undefined): Promise<boolean> {
  try {
    const { ok, body } = await getJson(url, caFile ? readFileSync(caFile) : undefined);
    return ok && body.ok === true;
  } catch {
    return false;
  }
}

/** Public liveness: database and hub reachability and node counts, nothing else. */
export async function GET(): Promise<Response> {
  const [counts, hub] = await Promise.all([countNodes({ db: db() }).catch(() => null), hubUp(webEnv().BRIA_HUB_HEALTH_URL, webEnv().BRIA_HUB_CA)]);
  const body = { ok: counts !== null && hub, db: counts !== null, hub, nodesOnline: counts?.online ?? null, nodesTotal: counts?.total ?? null };
  return Response.json(body, { status: body.ok ? 200 : 503, headers: { 'cache-control': 'no-store' } });
}
