/**
 * The files that make the installed agent a login service, as pure text: a systemd user unit
 * (Linux) and a launchd agent (macOS). install-service.ts writes them and runs the managers.
 */
export const SYSTEMD_UNIT_NAME = 'bria-agent.service';
export const LAUNCHD_LABEL = 'dev.bria.agent';

export interface ServiceSpec {
  /** Absolute path of node. */
  node: string;
  /** Absolute path of the agent file (the `bria-agent.mjs` link, so an update is one restart). */
  script: string;
  /** The agent's options (`--hub`, `--token-file`, `--dir`…): never a token. */
  args: string[];
  /** The service's environment (systemd and launchd start with an almost empty one). */
  env: Record<string, string>;
}

/** One systemd ExecStart word: quoted, with `\`, `"` escaped and `%`, `$` doubled (specifiers, variables). */
function systemdWord(s: string): string {
  return `"${s.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('%', '%%').replaceAll('$', '$$$$')}"`;
}

function systemdEnv(name: string, value: string): string {
  return `Environment=${systemdWord(`${name}=${value}`)}`;
}

export function systemdUnit(spec: ServiceSpec): string {
  return [
    '[Unit]',
    'Description=Bria node agent',
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${[spec.node, spec.script, ...spec.args].map(systemdWord).join(' ')}`,
    ...Object.entries(spec.env)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => systemdEnv(k, v)),
    'Restart=on-failure',
    'RestartSec=5',
    // The CLIs in tmux outlive the agent on purpose (their own tmux server): stopping the service ends only the agent.
    'KillMode=process',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

function xml(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&apos;');
}

export function launchdPlist(spec: ServiceSpec & { logFile: string }): string {
  const str = (s: string) => `<string>${xml(s)}</string>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    `  <key>Label</key>${str(LAUNCHD_LABEL)}`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...[spec.node, spec.script, ...spec.args].map((a) => `    ${str(a)}`),
    '  </array>',
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...Object.entries(spec.env)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `    <key>${xml(k)}</key>${str(v)}`),
    '  </dict>',
    '  <key>RunAtLoad</key><true/>',
    '  <key>KeepAlive</key><true/>',
    `  <key>StandardOutPath</key>${str(spec.logFile)}`,
    `  <key>StandardErrorPath</key>${str(spec.logFile)}`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}
