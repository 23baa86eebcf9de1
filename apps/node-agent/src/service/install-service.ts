import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentConfig } from '../env.ts';
import { LAUNCHD_LABEL, launchdPlist, type ServiceSpec, SYSTEMD_UNIT_NAME, systemdUnit } from './service-files.ts';

/** Runs one service-manager command (systemctl, launchctl); tests pass one that records. */
export type ServiceRunner = (command: string, args: string[]) => Promise<void>;

export const execRunner: ServiceRunner = (command, args) =>
  new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 30_000 }, (err, _stdout, stderr) =>
      err ? reject(new Error(`${command} ${args.join(' ')} failed: ${String(stderr).trim() || err.message}`)) : resolve(),
    );
  });

export interface ServiceContext {
  platform: NodeJS.Platform;
  home: string;
  uid: number;
  run: ServiceRunner;
}

/** Variables the service keeps from the installing shell: where the CLIs and tmux are, and Bria's own settings. */
const KEPT = [
  'PATH',
  'LANG',
  'NODE_EXTRA_CA_CERTS',
  'BRIA_CLAUDE_BIN',
  'BRIA_CODEX_BIN',
  'BRIA_TMUX_SOCKET',
  'BRIA_PERMISSION_WAIT_MINUTES',
  'LOG_LEVEL',
  'CLAUDE_CONFIG_DIR',
  'CODEX_HOME',
];

/** The installing shell's variables the service unit may carry (KEPT); nothing else leaves this process. */
export function serviceEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const k of KEPT) if (env[k]) kept[k] = env[k]!;
  return kept;
}

/**
 * What the service runs: node, this agent file and its options, with the token only as a file
 * (one given with --token-file, or `<agent dir>/token` written now, 0600). `kept` comes from
 * `serviceEnvironment` (process.env itself does not fit the type: its values may be undefined).
 */
export function serviceSpec(cfg: AgentConfig, o: { node: string; script: string; kept: Record<string, string> }): ServiceSpec {
  let tokenFile = cfg.tokenFile;
  if (!tokenFile) {
    tokenFile = path.join(cfg.dir, 'token');
    mkdirSync(cfg.dir, { recursive: true, mode: 0o700 });
    writeFileSync(tokenFile, `${cfg.token}\n`, { mode: 0o600 });
    chmodSync(tokenFile, 0o600);
  }
  const args = ['--hub', cfg.hubUrl, '--token-file', tokenFile, '--dir', path.resolve(cfg.dir)];
  if (cfg.caFile) args.push('--ca', cfg.caFile);
  if (cfg.caSha256) args.push('--ca-sha256', cfg.caSha256);
  if (cfg.insecure) args.push('--insecure');
  const env: Record<string, string> = { ...o.kept, BRIA_AGENT_SERVICE: '1' };
  return { node: o.node, script: path.resolve(o.script), args, env };
}

export function serviceFile(ctx: Pick<ServiceContext, 'platform' | 'home'>): string {
  if (ctx.platform === 'darwin') return path.join(ctx.home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  if (ctx.platform === 'linux') return path.join(ctx.home, '.config', 'systemd', 'user', SYSTEMD_UNIT_NAME);
  throw new Error(`install-service knows Linux (systemd) and macOS (launchd), not ${ctx.platform}.`);
}

/** Writes the unit (Linux) or the launch agent (macOS) and starts it now and at every login. */
export async function installService(spec: ServiceSpec, ctx: ServiceContext): Promise<string> {
  const file = serviceFile(ctx);
  mkdirSync(path.dirname(file), { recursive: true });
  if (ctx.platform === 'darwin') {
    const logFile = path.join(ctx.home, 'Library', 'Logs', 'bria-agent.log');
    mkdirSync(path.dirname(logFile), { recursive: true });
    writeFileSync(file, launchdPlist({ ...spec, logFile }), { mode: 0o600 });
    // A loaded older copy is replaced (bootout fails harmlessly when none is loaded).
    await ctx.run('launchctl', ['bootout', `gui/${ctx.uid}/${LAUNCHD_LABEL}`]).catch(() => {});
    await ctx.run('launchctl', ['bootstrap', `gui/${ctx.uid}`, file]);
  } else {
    writeFileSync(file, systemdUnit(spec), { mode: 0o600 });
    await ctx.run('systemctl', ['--user', 'daemon-reload']).catch((err: Error) => {
      throw new Error(
        `${err.message}\nThe unit is written (${file}) but this session has no systemd user manager (a container, or ssh without ` +
          '`loginctl enable-linger`). Run the agent in the foreground or under your own supervisor instead.',
      );
    });
    await ctx.run('systemctl', ['--user', 'enable', '--now', SYSTEMD_UNIT_NAME]);
    // Already running (a re-install): start it again with the new unit.
    await ctx.run('systemctl', ['--user', 'restart', SYSTEMD_UNIT_NAME]);
  }
  return file;
}

/** Stops the service and removes its file; the agent's data folder and the token stay. */
export async function uninstallService(ctx: ServiceContext): Promise<string> {
  const file = serviceFile(ctx);
  if (ctx.platform === 'darwin') {
    await ctx.run('launchctl', ['bootout', `gui/${ctx.uid}/${LAUNCHD_LABEL}`]).catch(() => {});
    rmSync(file, { force: true });
  } else {
    await ctx.run('systemctl', ['--user', 'disable', '--now', SYSTEMD_UNIT_NAME]).catch(() => {});
    rmSync(file, { force: true });
    await ctx.run('systemctl', ['--user', 'daemon-reload']);
  }
  return file;
}
