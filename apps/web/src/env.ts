import { findAgentBundleDir, readAgentBundle } from '@bria/core/agent-bundle';
import { parseEnv, zLogLevel } from '@bria/core/env';
import { z } from 'zod';

/** The dashboard's configuration, parsed once at first use (not at build time). */
const zWebEnv = z.object({
  DATABASE_URL: z.string({ error: 'is required (postgresql://…)' }).regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL'),
  BRIA_HUB_HEALTH_URL: z.url().default('http://127.0.0.1:3001/health'),
  /** PEM file trusted for an https health URL (the hub's BRIA_TLS_CERT, set by the launcher). */
  BRIA_HUB_CA: z.string().optional(),
  /** The dashboard's public origin, used for links and to decide whether cookies are Secure. */
  BRIA_PUBLIC_URL: z.url().optional(),
  /** Where new computers' agents connect; derived from the public host and the hub port when unset. */
  BRIA_HUB_PUBLIC_URL: z.string().regex(/^wss?:\/\/\S+$/, 'must be a ws:// or wss:// URL').optional(),
  /** The agent bundle's folder (`dist/agent`, set by the launcher); found above the working folder when unset. */
  BRIA_AGENT_BUNDLE_DIR: z.string().optional(),
  LOG_LEVEL: zLogLevel,
  /** Only whether it is set matters here: the Telegram users setting is shown when the bot runs. */
  TELEGRAM_BOT_TOKEN: z.string().optional(),
});
export type WebEnv = z.output<typeof zWebEnv>;

let parsed: WebEnv | undefined;
export function webEnv(): WebEnv {
  parsed ??= parseEnv(zWebEnv);
  return parsed;
}

/** `ws(s)://<public host>:<hub port>/agent` unless configured; the hub port and TLS come from the health URL. */
export function hubPublicUrl(env: WebEnv, requestHost: string | null): string {
  if (env.BRIA_HUB_PUBLIC_URL) return env.BRIA_HUB_PUBLIC_URL;
  const health = new URL(env.BRIA_HUB_HEALTH_URL);
  const hubPort = health.port || '3001';
  const host = env.BRIA_PUBLIC_URL ? new URL(env.BRIA_PUBLIC_URL).hostname : (requestHost?.replace(/:\d+$/, '') ?? '127.0.0.1');
  // A hub with a certificate (BRIA_TLS_CERT) is reached with TLS, its health URL too.
  return `${health.protocol === 'https:' ? 'wss' : 'ws'}://${host}:${hubPort}/agent`;
}

/** The agent bundle this server hands out (read per request: a rebuild is seen without a restart). */
export function agentBundle(env: WebEnv): { version: string; sha256: string } | null {
  const dir = env.BRIA_AGENT_BUNDLE_DIR ?? findAgentBundleDir(process.cwd());
  const b = dir ? readAgentBundle(dir) : null;
  return b ? { version: b.version, sha256: b.sha256 } : null;
}
