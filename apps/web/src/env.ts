import path from 'node:path';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { findAgentBundleDir, readAgentBundle } from '@bria/core/agent-bundle';
import { defaultDataDir, parseEnv, telegramBotConfigured, type TranscribeConfig, transcribeConfigOf, zLogLevel, zTranscribeEnv } from '@bria/core/env';
import type { HubListen } from '@bria/core/trpc';
import { z } from 'zod';

/** The dashboard's configuration, parsed once at first use (not at build time). */
const zWebEnv = z
  .object({
    DATABASE_URL: z.string({ error: 'is required (postgresql://…)' }).regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL'),
    BRIA_HUB_HEALTH_URL: z.url().default('http://127.0.0.1:3001/health'),
    /** PEM file trusted for an https health URL (the hub's BRIA_TLS_CERT, set by the launcher). */
    BRIA_HUB_CA: z.string().optional(),
    /**
     * The hub's own CA certificate (PEM file; npm start makes it in `<data>/tls/ca.pem` and sets this
     * unless BRIA_TLS_CERT is given or BRIA_HUB_TLS=off): install commands carry it and its SHA-256.
     */
    BRIA_HUB_OWN_CA: z.string().optional(),
    /** The dashboard's public origin, used for links and to decide whether cookies are Secure. */
    BRIA_PUBLIC_URL: z.url().optional(),
    /** Where new computers' agents connect; derived from the public host and the hub port when unset. */
    BRIA_HUB_PUBLIC_URL: z
      .string()
      .regex(/^wss?:\/\/\S+$/, 'must be a ws:// or wss:// URL')
      .optional(),
    /**
     * Where the hub listens (the hub reads the same two: BRIA_HUB_HOST, else BRIA_HOST; npm start
     * passes them on), so "Add a computer" can say when no other computer can reach it.
     */
    BRIA_HOST: z.string().default('127.0.0.1'),
    BRIA_HUB_HOST: z.string().optional(),
    /** The agent bundle's folder (`dist/agent`, set by the launcher); found above the working folder when unset. */
    BRIA_AGENT_BUNDLE_DIR: z.string().optional(),
    /** Bria's data folder (the launcher's); message attachments are kept under `attachments/` in it, as the bot keeps them. */
    BRIA_DATA_DIR: z.string().optional(),
    LOG_LEVEL: zLogLevel,
    /** Only whether it is set matters here (see `telegramBotOn`). */
    TELEGRAM_BOT_TOKEN: z.string().optional(),
    /** Set by npm start: 1 when it started the Telegram bot, 0 when not (see `telegramBotOn`). */
    BRIA_TELEGRAM_BOT: z
      .enum(['0', '1', 'true', 'false', 'yes', 'no', 'on', 'off'])
      .optional()
      .transform((v) => (v === undefined ? undefined : ['1', 'true', 'yes', 'on'].includes(v))),
  })
  .extend(zTranscribeEnv.shape);
export type WebEnv = z.output<typeof zWebEnv>;

let parsed: WebEnv | undefined;
export function webEnv(): WebEnv {
  parsed ??= parseWebEnv(process.env);
  return parsed;
}
export const parseWebEnv = (source: Record<string, string | undefined>): WebEnv => parseEnv(zWebEnv, source as NodeJS.ProcessEnv);

/**
 * Whether a Telegram bot runs with this dashboard (Settings shows the Telegram users field only then).
 * Decision: the launcher's record wins — npm start starts the bot and passes BRIA_TELEGRAM_BOT=1 or 0
 * (scripts/start.ts, by the same rule `telegramBotConfigured`). A dashboard started without the
 * launcher (the e2e server, a hand-made deployment that runs the bot beside it with the same
 * variables) has no record, and then the bot runs exactly when TELEGRAM_BOT_TOKEN is set.
 */
export function telegramBotOn(env: Pick<WebEnv, 'BRIA_TELEGRAM_BOT' | 'TELEGRAM_BOT_TOKEN'>): boolean {
  return env.BRIA_TELEGRAM_BOT ?? telegramBotConfigured(env);
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

/** How the hub listens, as the hub itself decides it (packages/core/src/hub/main.ts). */
export function hubListen(env: WebEnv): HubListen {
  return {
    host: env.BRIA_HUB_HOST ?? env.BRIA_HOST,
    variable: env.BRIA_HUB_HOST ? 'BRIA_HUB_HOST' : 'BRIA_HOST',
    urlConfigured: Boolean(env.BRIA_HUB_PUBLIC_URL),
  };
}

/** The hub's own CA for install commands (read per request, like the bundle); null without one. */
export function hubCa(env: WebEnv): { pem: string; sha256: string } | null {
  if (!env.BRIA_HUB_OWN_CA) return null;
  try {
    const pem = readFileSync(env.BRIA_HUB_OWN_CA, 'utf8');
    return { pem, sha256: createHash('sha256').update(new X509Certificate(pem).raw).digest('hex') };
  } catch {
    return null;
  }
}

/** The agent bundle this server hands out (read per request: a rebuild is seen without a restart). */
export function agentBundle(env: WebEnv): { version: string; sha256: string } | null {
  const dir = env.BRIA_AGENT_BUNDLE_DIR ?? findAgentBundleDir(process.cwd());
  const b = dir ? readAgentBundle(dir) : null;
  return b ? { version: b.version, sha256: b.sha256 } : null;
}

/** Where files sent with a message from the dashboard are kept: the bot's folder, `<data dir>/attachments`. */
export function attachmentsDir(env: Pick<WebEnv, 'BRIA_DATA_DIR'>): string {
  return path.join(env.BRIA_DATA_DIR ?? defaultDataDir(), 'attachments');
}

/** The speech-to-text service of the record button (BRIA_TRANSCRIBE_*, docs/voice.md); undefined: none. */
export const transcribeConfig = (env: WebEnv): TranscribeConfig | undefined => transcribeConfigOf(env);
