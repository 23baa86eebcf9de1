import { parseArgs } from 'node:util';
import path from 'node:path';
import { z } from 'zod';
import { defaultDataDir, parseEnv, zLogLevel } from '@bria/core/env';
import { cliEnvironment } from './cli-env.ts';
import { chooseProcessLayer, PROCESS_LAYERS, type ProcessLayer } from './executors/process-table.ts';

/** The node agent's configuration: flags win over environment variables. */
const zAgentEnv = z.object({
  BRIA_HUB_URL: z.string().regex(/^wss?:\/\//, 'must be a ws:// or wss:// URL').default('ws://127.0.0.1:3001/agent'),
  BRIA_AGENT_TOKEN: z.string().min(10, 'is missing or too short').optional(),
  BRIA_AGENT_DIR: z.string().optional(),
  BRIA_DATA_DIR: z.string().optional(),
  BRIA_CLAUDE_BIN: z.string().default('claude'),
  BRIA_CODEX_BIN: z.string().default('codex'),
  BRIA_TMUX_SOCKET: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/).default('bria'),
  /**
   * How long a permission request or question waits for an answer from Telegram or the dashboard
   * before it is left to the computer (minutes, 0.1–600, fractions allowed; the hook's own timeout
   * is this + 30 s).
   */
  BRIA_PERMISSION_WAIT_MINUTES: z.coerce.number().min(0.1).max(600).default(30),
  /**
   * Where the agent learns about processes (the CLIs' trees, start times, liveness, exit): `proc`
   * reads Linux's /proc (the default on Linux), `portable` parses `ps` output (always used on macOS;
   * on Linux it runs the same code paths as on a Mac, which is how CI verifies them).
   */
  BRIA_AGENT_PROCESS_LAYER: z.enum(PROCESS_LAYERS).optional(),
  LOG_LEVEL: zLogLevel,
});

export interface AgentConfig {
  hubUrl: string;
  token: string;
  dir: string;
  claudeBin: string;
  codexBin: string;
  tmuxSocket: string;
  logLevel: string;
  /** BRIA_PERMISSION_WAIT_MINUTES in ms (hooks/hook-channel.ts `boundMs`). */
  permissionWaitMs?: number;
  /**
   * The environment the CLIs run with: the agent's own (HOME, CODEX_HOME, proxies, base URLs…)
   * without Bria's variables (cli-env.ts).
   */
  cliEnv?: Readonly<Record<string, string | undefined>>;
  /** BRIA_AGENT_PROCESS_LAYER, resolved for this system (executors/process-table.ts). */
  processLayer?: ProcessLayer;
}

export function loadAgentConfig(argv: string[], env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): AgentConfig {
  const { values } = parseArgs({
    args: argv,
    options: { hub: { type: 'string' }, token: { type: 'string' }, dir: { type: 'string' } },
    strict: true,
  });
  const e = parseEnv(zAgentEnv, env);
  const token = values.token ?? e.BRIA_AGENT_TOKEN;
  if (!token) throw new Error('No agent token: pass --token <token> (from the dashboard: Nodes → Add a computer) or set BRIA_AGENT_TOKEN.');
  let hubUrl = values.hub ?? e.BRIA_HUB_URL;
  if (/^https?:\/\//.test(hubUrl)) hubUrl = hubUrl.replace(/^http/, 'ws');
  if (!/\/agent\/?$/.test(hubUrl)) hubUrl = `${hubUrl.replace(/\/$/, '')}/agent`;
  return {
    hubUrl,
    token,
    dir: values.dir ?? e.BRIA_AGENT_DIR ?? path.join(e.BRIA_DATA_DIR ?? defaultDataDir(env), 'agent'),
    claudeBin: e.BRIA_CLAUDE_BIN,
    codexBin: e.BRIA_CODEX_BIN,
    tmuxSocket: e.BRIA_TMUX_SOCKET,
    logLevel: e.LOG_LEVEL,
    permissionWaitMs: Math.round(e.BRIA_PERMISSION_WAIT_MINUTES * 60_000),
    cliEnv: cliEnvironment(env),
    processLayer: chooseProcessLayer({ platform, forced: e.BRIA_AGENT_PROCESS_LAYER }),
  };
}
