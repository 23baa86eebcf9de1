import { parseEnv, zLogLevel } from '@bria/core/env';
import { z } from 'zod';

/** The dashboard's configuration, parsed once at first use (not at build time). */
const zWebEnv = z.object({
  DATABASE_URL: z.string({ error: 'is required (postgresql://…)' }).regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL'),
  BRIA_HUB_HEALTH_URL: z.url().default('http://127.0.0.1:3001/health'),
  /** The dashboard's public origin, used for links and to decide whether cookies are Secure. */
  BRIA_PUBLIC_URL: z.url().optional(),
  /** Where new computers' agents connect; derived from the public host and the hub port when unset. */
  BRIA_HUB_PUBLIC_URL: z.string().regex(/^wss?:\/\/\S+$/, 'must be a ws:// or wss:// URL').optional(),
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

/** `ws://<public host>:<hub port>/agent` unless configured; the hub port comes from the health URL. */
export function hubPublicUrl(env: WebEnv, requestHost: string | null): string {
  if (env.BRIA_HUB_PUBLIC_URL) return env.BRIA_HUB_PUBLIC_URL;
  const hubPort = new URL(env.BRIA_HUB_HEALTH_URL).port || '3001';
  const host = env.BRIA_PUBLIC_URL ? new URL(env.BRIA_PUBLIC_URL).hostname : (requestHost?.replace(/:\d+$/, '') ?? '127.0.0.1');
  return `ws://${host}:${hubPort}/agent`;
}
