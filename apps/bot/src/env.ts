import { z } from 'zod';
import path from 'node:path';
import { defaultDataDir, parseEnv, type TranscribeConfig, transcribeConfigOf, zDatabaseUrl, zLogLevel, zTranscribeEnv } from '@bria/core/env';

/** The bot's configuration. Parsed once at start; nothing else in the bot reads `process.env`. */
const zBotEnv = z
  .object({
    TELEGRAM_BOT_TOKEN: z.string().regex(/^\d+:[\w-]{10,}$/, 'must look like <bot id>:<secret> (from @BotFather)'),
    TELEGRAM_ALLOWED_USERS: z
      .string()
      .regex(/^\s*(\d+\s*(,\s*\d+\s*)*)?$/, 'comma-separated Telegram user ids')
      .default(''),
    TELEGRAM_API_ROOT: z.url().default('https://api.telegram.org'),
    TELEGRAM_WEBHOOK_URL: z.url().optional(),
    TELEGRAM_WEBHOOK_SECRET: z
      .string()
      .regex(/^[A-Za-z0-9_-]{16,256}$/, '16-256 characters of A-Z, a-z, 0-9, _ or -')
      .optional(),
    TELEGRAM_WEBHOOK_PORT: z.coerce.number().int().min(1).max(65535).default(3002),
    TELEGRAM_WEBHOOK_HOST: z.string().default('127.0.0.1'),
    DATABASE_URL: zDatabaseUrl.unwrap(),
    BRIA_PUBLIC_URL: z.url().default('http://127.0.0.1:3000'),
    BRIA_DATA_DIR: z.string().optional(),
    BRIA_BOT_OUTBOX_LEASE_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000),
    LOG_LEVEL: zLogLevel,
  })
  .extend(zTranscribeEnv.shape)
  .refine((e) => !e.TELEGRAM_WEBHOOK_URL || e.TELEGRAM_WEBHOOK_SECRET, {
    path: ['TELEGRAM_WEBHOOK_SECRET'],
    message: 'is required when TELEGRAM_WEBHOOK_URL is set (Telegram sends it back so forged updates are refused)',
  });

export interface BotConfig {
  token: string;
  allowedUsers: ReadonlySet<number>;
  apiRoot: string;
  webhook: { url: string; secret: string; port: number; host: string } | undefined;
  databaseUrl: string;
  publicUrl: string;
  /** Where attachments are kept until their session's node has them. */
  attachmentsDir: string;
  /** How long a claimed outbox row is held before another sender (or this one after a crash) may retry it. */
  outboxLeaseMs: number;
  logLevel: string;
  /** Speech to text for voice notes (docs/voice.md); undefined: voice is kept as audio only. */
  transcribe: TranscribeConfig | undefined;
}

export function loadBotConfig(source: NodeJS.ProcessEnv = process.env): BotConfig {
  const e = parseEnv(zBotEnv, source);
  const allowed = e.TELEGRAM_ALLOWED_USERS.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  return {
    token: e.TELEGRAM_BOT_TOKEN,
    allowedUsers: new Set(allowed),
    apiRoot: e.TELEGRAM_API_ROOT.replace(/\/$/, ''),
    webhook:
      e.TELEGRAM_WEBHOOK_URL && e.TELEGRAM_WEBHOOK_SECRET
        ? { url: e.TELEGRAM_WEBHOOK_URL, secret: e.TELEGRAM_WEBHOOK_SECRET, port: e.TELEGRAM_WEBHOOK_PORT, host: e.TELEGRAM_WEBHOOK_HOST }
        : undefined,
    databaseUrl: e.DATABASE_URL,
    publicUrl: e.BRIA_PUBLIC_URL,
    outboxLeaseMs: e.BRIA_BOT_OUTBOX_LEASE_MS,
    attachmentsDir: path.join(e.BRIA_DATA_DIR ?? defaultDataDir(source), 'attachments'),
    logLevel: e.LOG_LEVEL,
    transcribe: transcribeConfigOf(e),
  };
}
