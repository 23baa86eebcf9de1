import { mkdtempSync, readFileSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentConfig } from '../env.ts';
import { installService, serviceEnvironment, serviceSpec, uninstallService } from './install-service.ts';

function recorder() {
  const calls: string[] = [];
  return { calls, run: async (cmd: string, args: string[]) => void calls.push([cmd, ...args].join(' ')) };
}

const cfg = (dir: string, extra: Partial<AgentConfig> = {}): AgentConfig => ({
  hubUrl: 'wss://bria.example.net:3001/agent',
  token: 'bria_agent_secret-token-value',
  dir,
  claudeBin: 'claude',
  codexBin: 'codex',
  tmuxSocket: 'bria',
  logLevel: 'info',
  ...extra,
});

describe('install-service', () => {
  it('Linux: writes ~/.config/systemd/user/bria-agent.service and enables it now; the token only as a 0600 file', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'bria-svc-'));
    const dir = path.join(home, '.local/share/bria-agent/state');
    const spec = serviceSpec(cfg(dir), {
      node: '/usr/bin/node',
      script: path.join(home, '.local/share/bria-agent/bria-agent.mjs'),
      kept: serviceEnvironment({ PATH: '/x/bin:/usr/bin', SECRET_THING: 'no', BRIA_AGENT_TOKEN: 'never' }),
    });
    expect(spec.args).toEqual(['--hub', 'wss://bria.example.net:3001/agent', '--token-file', path.join(dir, 'token'), '--dir', dir]);
    expect(spec.env).toEqual({ BRIA_AGENT_SERVICE: '1', PATH: '/x/bin:/usr/bin' });
    expect(readFileSync(path.join(dir, 'token'), 'utf8')).toBe('bria_agent_secret-token-value\n');
    expect(statSync(path.join(dir, 'token')).mode & 0o777).toBe(0o600);

    const r = recorder();
    const file = await installService(spec, { platform: 'linux', home, uid: 1000, run: r.run });
    expect(file).toBe(path.join(home, '.config/systemd/user/bria-agent.service'));
    const unit = readFileSync(file, 'utf8');
    expect(unit).toContain('Restart=on-failure');
    expect(unit).toContain('WantedBy=default.target');
    expect(unit).not.toContain('secret-token');
    expect(r.calls).toEqual([
      'systemctl --user daemon-reload',
      'systemctl --user enable --now bria-agent.service',
      'systemctl --user restart bria-agent.service',
    ]);

    const u = recorder();
    await uninstallService({ platform: 'linux', home, uid: 1000, run: u.run });
    expect(existsSync(file)).toBe(false);
    expect(u.calls).toEqual(['systemctl --user disable --now bria-agent.service', 'systemctl --user daemon-reload']);
  });

  it('macOS: writes ~/Library/LaunchAgents/dev.bria.agent.plist and bootstraps it; a given token file, CA and --insecure are kept', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'bria-svc-'));
    const dir = path.join(home, 'Library/Application Support/bria-agent/state');
    const spec = serviceSpec(cfg(dir, { tokenFile: '/t/token', caFile: '/t/ca.pem', caSha256: 'ab'.repeat(32), insecure: true }), {
      node: '/opt/homebrew/bin/node',
      script: '/a/bria-agent.mjs',
      kept: {},
    });
    expect(spec.args).toEqual([
      '--hub',
      'wss://bria.example.net:3001/agent',
      '--token-file',
      '/t/token',
      '--dir',
      dir,
      '--ca',
      '/t/ca.pem',
      '--ca-sha256',
      'ab'.repeat(32),
      '--insecure',
    ]);
    expect(existsSync(path.join(dir, 'token'))).toBe(false);
    const r = recorder();
    const file = await installService(spec, { platform: 'darwin', home, uid: 501, run: r.run });
    expect(file).toBe(path.join(home, 'Library/LaunchAgents/dev.bria.agent.plist'));
    expect(readFileSync(file, 'utf8')).toContain('<key>KeepAlive</key><true/>');
    expect(r.calls).toEqual(['launchctl bootout gui/501/dev.bria.agent', `launchctl bootstrap gui/501 ${file}`]);
    const u = recorder();
    await uninstallService({ platform: 'darwin', home, uid: 501, run: u.run });
    expect(u.calls).toEqual(['launchctl bootout gui/501/dev.bria.agent']);
    expect(existsSync(file)).toBe(false);
  });

  it('Linux without a systemd user manager: says so, and what to do instead', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'bria-svc-'));
    const spec = serviceSpec(cfg(path.join(home, 'state'), { tokenFile: '/t/token' }), { node: '/usr/bin/node', script: '/a/bria-agent.mjs', kept: {} });
    const run = async (cmd: string, args: string[]) => {
      throw new Error(`${cmd} ${args.join(' ')} failed: Failed to connect to bus: No medium found`);
    };
    await expect(installService(spec, { platform: 'linux', home, uid: 0, run })).rejects.toThrow(/no systemd user manager .*Run the agent in the foreground/s);
  });

  it('refuses other systems with a clear message', async () => {
    await expect(installService({ node: 'n', script: 's', args: [], env: {} }, { platform: 'win32', home: '/h', uid: 0, run: recorder().run })).rejects.toThrow(
      'install-service knows Linux (systemd) and macOS (launchd), not win32.',
    );
  });
});
