import { hostname } from 'node:os';
import path from 'node:path';
import type { ServerEnv } from '../../packages/core/src/env.ts';
import { isLoopbackHost } from '../../packages/core/src/domain/hub-reach.ts';
import { ensureHubTls, hubTlsNames } from '../../packages/core/src/hub/tls/hub-tls-files.ts';

/**
 * How the hub's port is secured (issue 30), decided once by the launcher and handed to the children:
 * - `own` (default): Bria's own CA in `<data>/tls/` (made at the first start, kept; the hub's
 *   certificate re-issued when an address is new). TLS is always on the hub port, loopback too:
 *   this computer's agent trusts the CA file (BRIA_AGENT_CA) and the dashboard's health check too
 *   (BRIA_HUB_CA); the dashboard's install commands carry the CA (BRIA_HUB_OWN_CA) and its pin.
 * - `cert`: the operator's BRIA_TLS_CERT / BRIA_TLS_KEY, as before.
 * - `off`: BRIA_HUB_TLS=off, plain ws:// — the explicit opt-in, warned about when the hub listens
 *   on the network.
 */
export type LauncherTls =
  | { mode: 'own'; certFile: string; keyFile: string; caFile: string; caSha256: string; made: 'ca' | 'cert' | 'none' }
  | { mode: 'cert'; certFile: string; keyFile: string }
  | { mode: 'off' };

export function hostOfUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

export async function launcherTls(env: ServerEnv & { BRIA_HUB_HOST?: string | undefined }, dataDir: string): Promise<LauncherTls> {
  if (env.BRIA_TLS_CERT && env.BRIA_TLS_KEY) return { mode: 'cert', certFile: path.resolve(env.BRIA_TLS_CERT), keyFile: path.resolve(env.BRIA_TLS_KEY) };
  if (env.BRIA_HUB_TLS === 'off') return { mode: 'off' };
  const names = hubTlsNames({
    hostname: hostname(),
    extra: [env.BRIA_HOST, env.BRIA_HUB_HOST, hostOfUrl(env.BRIA_PUBLIC_URL), hostOfUrl(env.BRIA_HUB_PUBLIC_URL), ...(env.BRIA_TLS_NAMES ?? '').split(',')],
  });
  const files = await ensureHubTls({ dir: path.join(dataDir, 'tls'), names, label: hostname() });
  return { mode: 'own', certFile: files.certFile, keyFile: files.keyFile, caFile: files.caFile, caSha256: files.caSha256, made: files.made };
}

/** Said at start: what protects the agents' port, and a warning for a plain one on the network. */
export function tlsNotice(tls: LauncherTls, hubHost: string): string {
  if (tls.mode === 'own') {
    const what =
      tls.made === 'ca' ? 'made its own certificate authority' : tls.made === 'cert' ? 're-issued its certificate' : 'uses its own certificate authority';
    return `The hub ${what} (TLS on the agents' port; install commands pin SHA-256 ${tls.caSha256}).`;
  }
  if (tls.mode === 'cert') return "The hub uses the certificate in BRIA_TLS_CERT (TLS on the agents' port).";
  if (isLoopbackHost(hubHost)) return "The agents' port is plain ws:// (BRIA_HUB_TLS=off), on this computer only.";
  return `WARNING: the agents' port listens on ${hubHost} WITHOUT encryption (BRIA_HUB_TLS=off): agent tokens and everything the CLIs say cross the network readable. Remove BRIA_HUB_TLS=off to use Bria's own TLS.`;
}
