import { Agent } from './agent.ts';
import { loadAgentConfig } from './env.ts';

// `npm run agent -- --hub <url> --token <token>`: a node agent for this computer.
let cfg: ReturnType<typeof loadAgentConfig>;
try {
  cfg = loadAgentConfig(process.argv.slice(2));
} catch (err) {
  console.error(`bria agent: ${(err as Error).message}`);
  process.exit(2);
}
const quiet = cfg.logLevel === 'silent';
const agent = new Agent(cfg, (level, msg, fields) => {
  if (quiet) return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), name: 'agent', msg, ...fields });
  (level === 'info' ? process.stdout : process.stderr).write(`${line}\n`);
});
agent.client.on('state', (s: string) => {
  if (s === 'online' && !quiet) console.log(JSON.stringify({ level: 'info', name: 'agent', msg: `Connected to the hub at ${cfg.hubUrl}` }));
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
