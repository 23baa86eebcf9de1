import { Agent } from './agent.ts';
import { loadAgentConfig } from './env.ts';
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
