import { Agent } from './agent.ts';
import { loadAgentConfig } from './env.ts';
import { useProcessLayer } from './executors/process-table.ts';
import { agentLogger } from './log.ts';

// `npm run agent -- --hub <url> --token <token>`: a node agent for this computer.
let cfg: ReturnType<typeof loadAgentConfig>;
try {
  cfg = loadAgentConfig(process.argv.slice(2));
} catch (err) {
  console.error(`bria agent: ${(err as Error).message}`);
  process.exit(2);
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
const agent = new Agent(cfg, log);
agent.client.on('state', (s: string) => {
  if (s === 'online') logger.info(`Connected to the hub at ${cfg.hubUrl}`);
});
await agent.start();
let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    void agent.stop().then(() => process.exit(0));
  });
}
