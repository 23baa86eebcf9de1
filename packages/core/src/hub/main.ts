import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { z } from 'zod';
import { createDb } from '../db/client.ts';
import { parseEnv, zLogLevel } from '../env.ts';
import { createLogger } from '../log.ts';
import { startEngine, type Engine } from '../engine/start-engine.ts';
import { PushSender } from './push-sender.ts';
import { startRetention } from './retention.ts';
import { Hub } from './server.ts';

// The hub process: `tsx packages/core/src/hub/main.ts` (started by `npm start`).
const env = parseEnv(
  z
    .object({
      DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL'),
      BRIA_HOST: z.string().default('127.0.0.1'),
      BRIA_HUB_HOST: z.string().optional(),
      BRIA_HUB_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
      BRIA_HEARTBEAT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
      LOG_LEVEL: zLogLevel,
      // Retention of old agent commands, agent events and sent outbox rows (retention.ts); 0 = keep all.
      BRIA_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(30),
      BRIA_RETENTION_SWEEP_MINUTES: z.coerce.number().int().min(1).max(10_080).default(60),
      // PEM files: with both, agents connect with wss:// and download the agent over https://.
      BRIA_TLS_CERT: z.string().optional(),
      BRIA_TLS_KEY: z.string().optional(),
      // The agent bundle served at /agent/… (npm run build:agent); default: this checkout's dist/agent.
      BRIA_AGENT_BUNDLE_DIR: z.string().optional(),
      // Web Push (issue 32): the VAPID subject push services may contact (mailto: or https:).
      BRIA_PUSH_SUBJECT: z
        .string()
        .regex(/^(mailto:|https:\/\/)\S+$/, 'must be a mailto: or https:// URL')
        .optional(),
    })
    .refine((e) => !e.BRIA_TLS_CERT === !e.BRIA_TLS_KEY, { message: 'BRIA_TLS_CERT and BRIA_TLS_KEY go together', path: ['BRIA_TLS_CERT'] }),
);
const log = createLogger({ name: 'hub', level: env.LOG_LEVEL });
// V8 flags for this process, set before the first query compiles Prisma's WebAssembly query
// compiler (it is compiled lazily). `--liftoff-only` keeps V8's baseline code for that module and
// never builds optimized code for it: 50-60 MB less RSS (docs/benchmarks.md, "Hub with 1,000
// simulated agents"). Set BRIA_HUB_V8_FLAGS="" to turn it off.
const v8Flags = process.env.BRIA_HUB_V8_FLAGS ?? '--liftoff-only';
for (const flag of v8Flags.split(/\s+/).filter(Boolean)) setFlagsFromString(flag);
const db = createDb(env.DATABASE_URL);
let tls: { cert: Buffer; key: Buffer } | undefined;
try {
  tls = env.BRIA_TLS_CERT && env.BRIA_TLS_KEY ? { cert: readFileSync(env.BRIA_TLS_CERT), key: readFileSync(env.BRIA_TLS_KEY) } : undefined;
} catch (err) {
  console.error(`bria hub: cannot read the TLS certificate or key (BRIA_TLS_CERT / BRIA_TLS_KEY): ${(err as Error).message}`);
  process.exit(1);
}
const agentBundleDir = env.BRIA_AGENT_BUNDLE_DIR ?? fileURLToPath(new URL('../../../../dist/agent', import.meta.url));
const hub = new Hub({
  db,
  databaseUrl: env.DATABASE_URL,
  host: env.BRIA_HUB_HOST ?? env.BRIA_HOST,
  port: env.BRIA_HUB_PORT,
  heartbeatMs: env.BRIA_HEARTBEAT_MS,
  log,
  tls,
  agentBundleDir,
});
let engine: Engine | undefined;
let retention: ReturnType<typeof startRetention> | undefined;
let push: PushSender | undefined;
try {
  await hub.start();
  // The session engine runs beside the hub: agent events in, commands and outbox rows out.
  engine = await startEngine({ db, databaseUrl: env.DATABASE_URL, log });
  retention = startRetention(db, log, { days: env.BRIA_RETENTION_DAYS, sweepMinutes: env.BRIA_RETENTION_SWEEP_MINUTES });
  // Web Push: makes the VAPID keys on the first start, then sends the push outbox.
  push = new PushSender({
    db,
    databaseUrl: env.DATABASE_URL,
    log: log.child({ part: 'push' }),
    ...(env.BRIA_PUSH_SUBJECT ? { subject: env.BRIA_PUSH_SUBJECT } : {}),
  });
  await push.start();
} catch (err) {
  log.error({ err: (err as Error).message }, 'hub.start_failed');
  console.error(`bria hub: ${(err as Error).message}`);
  process.exit(1);
}
let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    void hub
      .stop()
      .then(() => retention?.stop())
      .then(() => push?.stop())
      .then(() => engine?.stop())
      .then(() => db.$disconnect())
      .finally(() => process.exit(0));
  });
}
