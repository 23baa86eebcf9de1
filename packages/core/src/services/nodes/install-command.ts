import { agentBundleName } from '../../agent-bundle.ts';

/** What the one-line install needs to know about the bundle the hub serves. */
export interface BundleRef {
  version: string;
  sha256: string;
}

/**
 * The hub's own certificate authority (npm start makes it, hub/tls): its PEM lets curl check the
 * download, its SHA-256 is what the agent pins (`--ca-sha256`).
 */
export interface HubCaRef {
  pem: string;
  sha256: string;
}

/** The agent's HTTP(S) folder on the hub: `ws://h:3001/agent` → `http://h:3001/agent`. */
export function agentDownloadBase(hubUrl: string): string {
  const u = new URL(hubUrl);
  u.protocol = u.protocol === 'wss:' ? 'https:' : 'http:';
  u.pathname = '/agent';
  u.search = '';
  u.hash = '';
  return u.toString().replace(/\/$/, '');
}

/** One shell word: single quotes, with any single quote closed, escaped and reopened. */
export function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/**
 * The steps both commands share: the data folder, the hub's CA certificate (with an own CA), the
 * checked download, the `bria-agent.mjs` link. curl trusts only that CA for the download
 * (`--cacert`), so a certificate from anyone else stops it before anything is fetched.
 */
function downloadSteps(hubUrl: string, bundle: BundleRef, ca: HubCaRef | undefined): string[] {
  const name = agentBundleName(bundle.version);
  const url = `${agentDownloadBase(hubUrl)}/${name}`;
  const pemLines = ca?.pem.trim().split(/\r?\n/) ?? [];
  return [
    '( set -e',
    'D="$HOME/.local/share/bria-agent"',
    '[ "$(uname)" = Darwin ] && D="$HOME/Library/Application Support/bria-agent"',
    'mkdir -p "$D" && chmod 700 "$D"',
    ...(ca ? [`printf '%s\\n' ${pemLines.map(shellQuote).join(' ')} > "$D/hub-ca.pem"`] : []),
    `F="$D/${name}"`,
    `curl ${ca ? '--cacert "$D/hub-ca.pem" ' : ''}-fsSL -o "$F.part" ${shellQuote(url)}`,
    `H=$( (sha256sum "$F.part" 2>/dev/null || shasum -a 256 "$F.part") | cut -d' ' -f1)`,
    `[ "$H" = ${bundle.sha256} ] || { rm -f "$F.part"; echo "bria: the download's SHA-256 is wrong; nothing installed" >&2; exit 1; }`,
    'mv "$F.part" "$F" && ln -sf "$(basename "$F")" "$D/bria-agent.mjs"',
  ];
}

/**
 * The one command a user pastes on another computer (sh, bash or zsh; Linux or macOS). In a
 * subshell, so a failure (`set -e`, `exit`) never closes the user's terminal:
 * 1. the data folder: `~/.local/share/bria-agent` (Linux) or `~/Library/Application Support/bria-agent`
 *    (macOS), mode 0700;
 * 2. curl downloads the versioned bundle to a `.part` file, its SHA-256 (sha256sum, or `shasum -a 256`
 *    on macOS) must be the one this server built, then it is renamed and `bria-agent.mjs` points to it;
 * 3. the token is written by the shell's builtin printf (no process, so never in `ps`) to `token`,
 *    mode 0600 (umask 077);
 * 4. the agent starts in the foreground with `--token-file`: the token is never on a command line;
 *    with the hub's own CA it pins it (`--ca-sha256`), like SSH's known hosts.
 *    (`node "$D/bria-agent.mjs" install-service` with the same options keeps it running after logout.)
 * The token is still in the pasted text (as it was before): the dashboard shows it once.
 */
export function installCommand(o: { hubUrl: string; bundle: BundleRef; token: string; ca?: HubCaRef; insecure?: boolean }): string {
  const pin = o.ca && o.hubUrl.startsWith('wss://') ? ` --ca-sha256 ${o.ca.sha256}` : '';
  return [
    ...downloadSteps(o.hubUrl, o.bundle, o.ca),
    `(umask 077 && printf '%s\\n' ${shellQuote(o.token)} > "$D/token")`,
    `exec node "$D/bria-agent.mjs" --hub ${shellQuote(o.hubUrl)} --token-file "$D/token" --dir "$D/state"${pin}${o.insecure ? ' --insecure' : ''} )`,
  ].join('; ');
}

/**
 * For a computer whose agent is outdated: the same checked download (the token file stays), then
 * the agent must be restarted, which the command says (a service: `systemctl --user restart
 * bria-agent` or `launchctl kickstart -k gui/<uid>/dev.bria.agent`; by hand: Ctrl-C and start again).
 */
export function updateCommand(o: { hubUrl: string; bundle: BundleRef; ca?: HubCaRef }): string {
  return [
    ...downloadSteps(o.hubUrl, o.bundle, o.ca),
    `echo "bria: agent ${o.bundle.version} installed in $D; restart it (systemctl --user restart bria-agent, launchctl kickstart -k gui/$(id -u)/dev.bria.agent, or Ctrl-C and start it again)" )`,
  ].join('; ');
}
