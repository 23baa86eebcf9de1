import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { z } from 'zod';
import { defaultDataDir, parseEnv, zLogLevel } from '@bria/core/env';
import { cliEnvironment } from './cli-env.ts';
import { normalizePin } from './hub-client/pinned-ca.ts';
import { chooseProcessLayer, PROCESS_LAYERS, type ProcessLayer } from './executors/process-table.ts';

/** The node agent's configuration: flags win over environment variables. */
const zAgentEnv = z.object({
  BRIA_HUB_URL: z
    .string()
    .regex(/^wss?:\/\//, 'must be a ws:// or wss:// URL')
    .default('ws://127.0.0.1:3001/agent'),
  BRIA_AGENT_TOKEN: z.string().min(10, 'is missing or too short').optional(),
  /** A file holding the token (mode 0600): the installed agent's way, never on a command line. */
  BRIA_AGENT_TOKEN_FILE: z.string().optional(),
  /** PEM file of a CA (or the hub's self-signed certificate) to trust besides the system's. */
  BRIA_AGENT_CA: z.string().optional(),
  /** SHA-256 of the hub's own CA certificate (the install command's `--ca-sha256`): pinned. */
  BRIA_AGENT_CA_SHA256: z.string().optional(),
  /** `1`: allow ws:// to a hub that is not on this computer (the token then crosses the network readable). */
  BRIA_AGENT_INSECURE: z.enum(['0', '1']).optional(),
  /** Set by the service files install-service writes. */
  BRIA_AGENT_SERVICE: z.enum(['0', '1']).optional(),
  BRIA_AGENT_DIR: z.string().optional(),
  BRIA_DATA_DIR: z.string().optional(),
  BRIA_CLAUDE_BIN: z.string().default('claude'),
  BRIA_CODEX_BIN: z.string().default('codex'),
  BRIA_TMUX_SOCKET: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/)
    .default('bria'),
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
  /**
   * Where sessions' own git worktrees go: `<this>/<repository name>/<branch>`. Unset: beside each
   * repository, `<repo>/../<repo name>.bria-worktrees/<branch>` (docs/worktrees.md).
   */
  BRIA_WORKTREES_DIR: z.string().startsWith('/', 'must be an absolute path').optional(),
  LOG_LEVEL: zLogLevel,
});

export interface AgentConfig {
  hubUrl: string;
  token: string;
  /** Where the token came from when it was a file (install-service keeps using that file). */
  tokenFile?: string;
  /** Extra trusted CA certificates (PEM), from --ca / BRIA_AGENT_CA. */
  ca?: Buffer;
  caFile?: string;
  /** The pinned CA's SHA-256 (hex), from --ca-sha256 / BRIA_AGENT_CA_SHA256 (hub-client/pinned-ca.ts). */
  caSha256?: string;
  insecure?: boolean;
  /** Runs as the login service install-service wrote. */
  asService?: boolean;
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
  /** BRIA_WORKTREES_DIR: the folder sessions' worktrees go in (by repository name); unset = beside each repository. */
  worktreesDir?: string;
}

export function loadAgentConfig(argv: string[], env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): AgentConfig {
  const { values } = parseArgs({
    args: argv,
    options: {
      hub: { type: 'string' },
      token: { type: 'string' },
      'token-file': { type: 'string' },
      dir: { type: 'string' },
      ca: { type: 'string' },
      'ca-sha256': { type: 'string' },
      insecure: { type: 'boolean' },
    },
    strict: true,
  });
  const e = parseEnv(zAgentEnv, env);
  const tokenFile = values['token-file'] ?? (values.token ? undefined : e.BRIA_AGENT_TOKEN_FILE);
  const token = values.token ?? (tokenFile ? readTokenFile(tokenFile) : e.BRIA_AGENT_TOKEN);
  if (!token) throw new Error('No agent token: pass --token-file <file> (the install command writes one) or set BRIA_AGENT_TOKEN.');
  let hubUrl = values.hub ?? e.BRIA_HUB_URL;
  if (/^https?:\/\//.test(hubUrl)) hubUrl = hubUrl.replace(/^http/, 'ws');
  if (!/\/agent\/?$/.test(hubUrl)) hubUrl = `${hubUrl.replace(/\/$/, '')}/agent`;
  const insecure = values.insecure === true || e.BRIA_AGENT_INSECURE === '1';
  refuseInsecure(hubUrl, insecure);
  const pinText = values['ca-sha256'] ?? e.BRIA_AGENT_CA_SHA256;
  const caSha256 = pinText === undefined ? undefined : normalizePin(pinText);
  if (pinText !== undefined && !caSha256) throw new Error(`--ca-sha256 must be 64 hex digits (the SHA-256 the install command shows), got "${pinText}".`);
  if (caSha256 && !hubUrl.startsWith('wss://'))
    throw new Error(`--ca-sha256 pins the hub's TLS certificate authority: the hub URL must be wss://, got ${hubUrl}.`);
  const caFile = values.ca ?? e.BRIA_AGENT_CA;
  let ca: Buffer | undefined;
  if (caFile) {
    try {
      ca = readFileSync(caFile);
    } catch (err) {
      throw new Error(`Cannot read the CA certificate ${caFile} (--ca / BRIA_AGENT_CA): ${(err as Error).message}`);
    }
  }
  return {
    hubUrl,
    token,
    ...(tokenFile ? { tokenFile: path.resolve(tokenFile) } : {}),
    ...(ca ? { ca, caFile: path.resolve(caFile!) } : {}),
    ...(caSha256 ? { caSha256 } : {}),
    insecure,
    asService: e.BRIA_AGENT_SERVICE === '1',
    dir: values.dir ?? e.BRIA_AGENT_DIR ?? path.join(e.BRIA_DATA_DIR ?? defaultDataDir(env), 'agent'),
    claudeBin: e.BRIA_CLAUDE_BIN,
    codexBin: e.BRIA_CODEX_BIN,
    tmuxSocket: e.BRIA_TMUX_SOCKET,
    logLevel: e.LOG_LEVEL,
    permissionWaitMs: Math.round(e.BRIA_PERMISSION_WAIT_MINUTES * 60_000),
    ...(e.BRIA_WORKTREES_DIR ? { worktreesDir: e.BRIA_WORKTREES_DIR } : {}),
    cliEnv: cliEnvironment(env),
    processLayer: chooseProcessLayer({ platform, forced: e.BRIA_AGENT_PROCESS_LAYER }),
  };
}

function readTokenFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`Cannot read the token file ${file}: ${(err as Error).message}`);
  }
  const token = text.trim();
  if (token.length < 10 || /\s/.test(token)) throw new Error(`The token file ${file} holds no agent token.`);
  return token;
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/**
 * Plain ws:// to another machine sends the token, and everything the CLIs say, readable by anyone
 * on the way: refused unless asked for (`--insecure`). This computer's own hub is fine.
 */
export function refuseInsecure(hubUrl: string, insecure: boolean): void {
  const u = new URL(hubUrl);
  if (u.protocol !== 'ws:' || insecure || isLoopback(u.hostname)) return;
  throw new Error(
    `Refusing ws://${u.host}: an unencrypted connection to another computer would send the agent token readable on the network. ` +
      `Use wss:// with --ca-sha256 as the dashboard's install command shows (npm start's hub serves TLS with its own CA), or pass --insecure on a network you trust.`,
  );
}
