import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/**
 * Configuration shared by Bria's processes. Each app parses its own variables with
 * `parseEnv(schema)` at start-up; nothing else reads `process.env`.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Bria's configuration has ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function parseEnv<S extends z.ZodType>(schema: S, source: NodeJS.ProcessEnv = process.env): z.output<S> {
  // An empty variable (`DATABASE_URL=`) means "not set", as people expect from shells and .env files.
  const present = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(present);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
}

/** Where Bria keeps its data when BRIA_DATA_DIR is not set. */
export function defaultDataDir(source: NodeJS.ProcessEnv = process.env): string {
  // As root the embedded Postgres runs as the `postgres` user, who cannot enter /root; a
  // system-wide location is also where a root-run service's data belongs.
  if (process.getuid?.() === 0) return '/var/lib/bria';
  const xdg = source.XDG_DATA_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(homedir(), '.local', 'share'), 'bria');
}

const port = (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback);
const flag = (fallback: boolean) =>
  z
    .enum(['0', '1', 'true', 'false', 'yes', 'no', 'on', 'off'])
    .optional()
    .transform((v) => (v === undefined ? fallback : ['1', 'true', 'yes', 'on'].includes(v)));

export const zDatabaseUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
  .optional();
export const zLogLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

export const zServerEnv = z.object({
  DATABASE_URL: zDatabaseUrl,
  BRIA_DATA_DIR: z.string().optional(),
  BRIA_PG_PORT: port(54329),
  BRIA_HOST: z.string().default('127.0.0.1'),
  BRIA_WEB_PORT: port(3000),
  BRIA_HUB_PORT: port(3001),
  BRIA_PUBLIC_URL: z.url().optional(),
  BRIA_LOCAL_AGENT: flag(true),
  BRIA_HEARTBEAT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** How many days a dashboard sign-in lasts (services/auth `webSessionTtlMs`). */
  BRIA_WEB_SESSION_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /** Hours without a request after which a dashboard sign-in ends (services/auth `webIdleMs`). */
  BRIA_WEB_IDLE_HOURS: z.coerce.number().int().min(1).max(8760).default(168),
  /** PEM certificate and key for the hub: remote agents then use wss:// (README, "Adding another computer"). */
  BRIA_TLS_CERT: z.string().optional(),
  BRIA_TLS_KEY: z.string().optional(),
  /**
   * `own` (default): without BRIA_TLS_CERT the hub serves TLS with Bria's own CA (made in
   * `<data>/tls/`), which install commands pin. `off`: plain ws:// — the explicit opt-in; the
   * launcher and "Add a computer" warn when the hub is then reachable from the network.
   */
  BRIA_HUB_TLS: z.enum(['own', 'off']).default('own'),
  /** More names (comma-separated host names or addresses) for the hub's own certificate. */
  BRIA_TLS_NAMES: z.string().optional(),
  /** Where other computers' agents connect, when it is not this computer's address (a proxy, a DNS name). */
  BRIA_HUB_PUBLIC_URL: z
    .string()
    .regex(/^wss?:\/\/\S+$/, 'must be a ws:// or wss:// URL')
    .optional(),
  /** The agent bundle's folder; default `dist/agent` of this checkout. */
  BRIA_AGENT_BUNDLE_DIR: z.string().optional(),
  TELEGRAM_BOT_TOKEN: z.string().min(10).optional(),
  TELEGRAM_ALLOWED_USERS: z
    .string()
    .regex(/^\s*(\d+\s*(,\s*\d+\s*)*)?$/, 'comma-separated Telegram user ids')
    .optional(),
  TELEGRAM_API_ROOT: z.url().optional(),
  LOG_LEVEL: zLogLevel,
});
export type ServerEnv = z.output<typeof zServerEnv>;

export { flag as zFlag, port as zPort };

/**
 * Whether `npm start` runs the Telegram bot: exactly when TELEGRAM_BOT_TOKEN is set (not blank).
 * The launcher passes this decision to the dashboard as BRIA_TELEGRAM_BOT (see `telegramBotOn` in
 * apps/web/src/env.ts), so the dashboard shows bot settings only when a bot really runs.
 */
export const telegramBotConfigured = (e: { TELEGRAM_BOT_TOKEN?: string | undefined }): boolean => Boolean(e.TELEGRAM_BOT_TOKEN?.trim());

/**
 * Speech to text (docs/voice.md): an OpenAI-compatible `/audio/transcriptions` service. Read by the
 * bot and the dashboard; without BRIA_TRANSCRIBE_URL voice is kept as an audio file only.
 */
export const zTranscribeEnv = z.object({
  BRIA_TRANSCRIBE_URL: z
    .url()
    .regex(/^https?:\/\//, 'must be an http:// or https:// URL (e.g. https://api.openai.com/v1)')
    .optional(),
  BRIA_TRANSCRIBE_KEY: z.string().optional(),
  BRIA_TRANSCRIBE_MODEL: z.string().min(1).default('whisper-1'),
  BRIA_TRANSCRIBE_LANGUAGE: z
    .string()
    .regex(/^[a-z]{2,3}$/, 'an ISO-639-1 code such as en or ru')
    .optional(),
  BRIA_TRANSCRIBE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000),
});

/** Where and how voice is transcribed; undefined when no service is configured. */
export interface TranscribeConfig {
  baseUrl: string;
  apiKey?: string;
  model: string;
  language?: string;
  timeoutMs: number;
}

export function transcribeConfigOf(e: z.output<typeof zTranscribeEnv>): TranscribeConfig | undefined {
  if (!e.BRIA_TRANSCRIBE_URL) return undefined;
  return {
    baseUrl: e.BRIA_TRANSCRIBE_URL.replace(/\/+$/, ''),
    model: e.BRIA_TRANSCRIBE_MODEL,
    timeoutMs: e.BRIA_TRANSCRIBE_TIMEOUT_MS,
    ...(e.BRIA_TRANSCRIBE_KEY?.trim() ? { apiKey: e.BRIA_TRANSCRIBE_KEY.trim() } : {}),
    ...(e.BRIA_TRANSCRIBE_LANGUAGE ? { language: e.BRIA_TRANSCRIBE_LANGUAGE } : {}),
  };
}
