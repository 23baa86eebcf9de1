import { homedir } from 'node:os';
import { Agent } from './agent.ts';
import { bundleInfo } from './bundle-info.ts';
import { loadAgentConfig } from './env.ts';
import { useProcessLayer } from './executors/process-table.ts';
import { lockAgentDir } from './instance-lock.ts';
import { agentLogger } from './log.ts';
import { execRunner, installService, serviceEnvironment, serviceSpec, uninstallService } from './service/install-service.ts';

// `node bria-agent.mjs --hub <url> --token-file <file>` (or `npm run agent -- …` in a checkout):
// a node agent for this computer. `install-service` / `uninstall-service` (same options): run it
// as a login service (systemd user unit on Linux, launchd agent on macOS).
const argv = process.argv.slice(2);
const sub = argv[0] === 'install-service' || argv[0] === 'uninstall-service' ? argv[0] : null;
const fail = (msg: string): never => {
  console.error(`bria agent: ${msg}`);
  process.exit(2);
};
let cfg!: ReturnType<typeof loadAgentConfig>;
const ctx = { platform: process.platform, home: homedir(), uid: process.getuid?.() ?? 0, run: execRunner };
if (sub === 'uninstall-service') {
  const file = await uninstallService(ctx).catch((err: Error) => fail(err.message));
  console.log(`bria agent: the service is stopped and ${file} removed (the agent's folder and token stay).`);
  process.exit(0);
}
try {
  cfg = loadAgentConfig(sub ? argv.slice(1) : argv);
} catch (err) {
  fail((err as Error).message);
}
if (sub === 'install-service') {
  // The service runs this very file: a bundle, never the checkout's TypeScript (which needs tsx).
  if (!bundleInfo) fail("install-service runs the one-file agent (npm run build:agent, or the dashboard's install command).");
  // Only the allow-list (install-service.ts KEPT: PATH, LANG, the agent's own settings, the CLIs'
  // homes) goes into the service unit; the CLIs the agent starts get cliEnvironment() (cli-env.ts).
  const spec = serviceSpec(cfg, { node: process.execPath, script: process.argv[1]!, kept: serviceEnvironment(process.env) });
  const file = await installService(spec, ctx).catch((err: Error) => fail(err.message));
  console.log(`bria agent: installed ${file}; the agent runs now and at every login.`);
  process.exit(0);
}
let lock: { release: () => void } | undefined;
try {
  lock = lockAgentDir(cfg.dir);
} catch (err) {
  fail((err as Error).message);
}
const { logger, log } = agentLogger({ level: cfg.logLevel });
// Chosen once, before any session runs; a layer that cannot see this very process cannot prove
// anything about the CLIs (a missing `ps` would make every CLI look gone).
const procs = useProcessLayer(cfg.processLayer ?? 'proc');
const self = await procs.procStat(process.pid).catch((err: Error) => err);
if (!self || self instanceof Error) {
  console.error(`bria agent: the ${procs.layer} process layer cannot read this process${self ? `: ${self.message}` : ''}`);
  process.exit(2);
}
log('info', 'agent.process_layer', { layer: procs.layer });
if (argv.includes('--token'))
  logger.warn('The token given with --token is visible to every user of this computer (ps); use --token-file <file> (mode 0600) or BRIA_AGENT_TOKEN.');
const agent = new Agent(cfg, log);
let hinted = false;
agent.client.on('state', (s: string) => {
  if (s !== 'online') return;
  logger.info(`Connected to the hub at ${cfg.hubUrl}`);
  // Started by hand from the installed file: how to keep it running.
  if (bundleInfo && !cfg.asService && !hinted) {
    hinted = true;
    const options = argv.map((a, i) => (argv[i - 1] === '--token' ? '<token>' : JSON.stringify(a))).join(' ');
    logger.info(`To run this agent at every login, stop it and run: node ${JSON.stringify(process.argv[1])} install-service ${options}`);
  }
});
await agent.start();
let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    void agent.stop().then(() => {
      lock?.release();
      process.exit(0);
    });
  });
}
