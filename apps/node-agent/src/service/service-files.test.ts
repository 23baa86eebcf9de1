import { describe, expect, it } from 'vitest';
import { launchdPlist, systemdUnit } from './service-files.ts';

const spec = {
  node: '/usr/local/bin/node',
  script: '/home/ann/.local/share/bria-agent/bria-agent.mjs',
  args: [
    '--hub',
    'wss://bria.example.net:3001/agent',
    '--token-file',
    '/home/ann/.local/share/bria-agent/token',
    '--dir',
    '/home/ann/.local/share/bria-agent/state',
  ],
  env: { PATH: '/home/ann/.npm/bin:/usr/bin', BRIA_AGENT_SERVICE: '1' },
};

describe('systemd user unit', () => {
  it('runs node on the agent file with its options, restarts on failure, starts with the user session', () => {
    expect(systemdUnit(spec)).toBe(
      [
        '[Unit]',
        'Description=Bria node agent',
        'After=network-online.target',
        'Wants=network-online.target',
        '',
        '[Service]',
        'Type=simple',
        'ExecStart="/usr/local/bin/node" "/home/ann/.local/share/bria-agent/bria-agent.mjs" "--hub" "wss://bria.example.net:3001/agent" "--token-file" "/home/ann/.local/share/bria-agent/token" "--dir" "/home/ann/.local/share/bria-agent/state"',
        'Environment="BRIA_AGENT_SERVICE=1"',
        'Environment="PATH=/home/ann/.npm/bin:/usr/bin"',
        'Restart=on-failure',
        'RestartSec=5',
        'KillMode=process',
        '',
        '[Install]',
        'WantedBy=default.target',
        '',
      ].join('\n'),
    );
  });

  it('escapes what systemd would expand or split: quotes, backslashes, %, $ and spaces', () => {
    const unit = systemdUnit({ ...spec, script: '/home/a b/100% "x"\\$HOME.mjs', env: {} });
    expect(unit).toContain('"/home/a b/100%% \\"x\\"\\\\$$HOME.mjs"');
  });
});

describe('launchd agent', () => {
  it('runs at load and is kept alive, with its arguments and environment as XML strings', () => {
    const plist = launchdPlist({
      ...spec,
      script: '/Users/ann/Library/Application Support/bria-agent/bria-agent.mjs',
      logFile: '/Users/ann/Library/Logs/bria-agent.log',
      env: { PATH: '/opt/homebrew/bin:/usr/bin', X: 'a<b&"c"' },
    });
    expect(plist).toContain('<key>Label</key><string>dev.bria.agent</string>');
    expect(plist).toContain('<key>RunAtLoad</key><true/>');
    expect(plist).toContain('<key>KeepAlive</key><true/>');
    expect(plist).toContain(
      [
        '  <key>ProgramArguments</key>',
        '  <array>',
        '    <string>/usr/local/bin/node</string>',
        '    <string>/Users/ann/Library/Application Support/bria-agent/bria-agent.mjs</string>',
        '    <string>--hub</string>',
        '    <string>wss://bria.example.net:3001/agent</string>',
      ].join('\n'),
    );
    expect(plist).toContain('<key>X</key><string>a&lt;b&amp;&quot;c&quot;</string>');
    expect(plist).toContain('<key>StandardErrorPath</key><string>/Users/ann/Library/Logs/bria-agent.log</string>');
    expect(plist.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist')).toBe(true);
  });
});
