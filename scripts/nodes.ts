import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultDataDir, parseEnv, zServerEnv } from '../packages/core/src/env.ts';
import { fileURLToPath } from 'node:url';
import { readAgentBundle } from '../packages/core/src/agent-bundle.ts';
import { addComputer, isInsecureRemote, listDashboardNodes, revokeToken } from '../packages/core/src/services/nodes/index.ts';
import { ensureAgentBundle } from './launcher/agent-bundle.ts';
import { launcherTls } from './launcher/hub-tls.ts';
import { enableLocalAgent } from './launcher/local-agent.ts';
import { openScriptDatabase } from './launcher/script-database.ts';

/**
 * `npm run nodes -- list | add <name> [--hub wss://host:3001/agent] | revoke <token id> | enable-local`: manage computers
 * and agent tokens without the dashboard. Uses DATABASE_URL, or the embedded database (reused if
 * Bria is running, started for the duration of the command otherwise).
 */
const USAGE = 'Usage: npm run nodes -- list | add <name> [--hub wss://<server>:3001] | revoke <token id> | enable-local';
const { positionals, values } = parseArgs({ allowPositionals: true, options: { hub: { type: 'string' } } });
const [verb, arg] = positionals;
if (!verb || !['list', 'add', 'revoke', 'enable-local'].includes(verb) || (['add', 'revoke'].includes(verb) && !arg)) {
  console.error(USAGE);
  process.exit(2);
}
const env = parseEnv(zServerEnv);
const { db, close } = await openScriptDatabase(env);
const bundleDir = path.resolve(env.BRIA_AGENT_BUNDLE_DIR ?? fileURLToPath(new URL('../dist/agent', import.meta.url)));
// The command pins the bundle's checksum: built (or rebuilt after a change) as npm start would.
if (verb === 'add') await ensureAgentBundle(fileURLToPath(new URL('..', import.meta.url)), bundleDir, (m) => console.log(m));
const bundle = readAgentBundle(bundleDir);
// Default: this server's host name as the other computer would reach it; --hub overrides.
const host = env.BRIA_PUBLIC_URL ? new URL(env.BRIA_PUBLIC_URL).hostname : env.BRIA_HOST === '127.0.0.1' ? hostname() : env.BRIA_HOST;
// The hub's TLS as npm start sets it up (launcher/hub-tls.ts): with its own CA the command pins it.
const dataDir = path.resolve(env.BRIA_DATA_DIR ?? defaultDataDir());
const tls = await launcherTls({ ...env, BRIA_HUB_HOST: process.env.BRIA_HUB_HOST }, dataDir);
const hubCa = tls.mode === 'own' ? { pem: readFileSync(tls.caFile, 'utf8'), sha256: tls.caSha256 } : null;
const hubPublicUrl = values.hub ?? env.BRIA_HUB_PUBLIC_URL ?? `${tls.mode === 'off' ? 'ws' : 'wss'}://${host}:${env.BRIA_HUB_PORT}/agent`;
let code = 0;
try {
  if (verb === 'list') {
    for (const n of await listDashboardNodes({ db, bundle, hubPublicUrl, hubCa })) {
      const version = n.agentVersion ? `  agent ${n.agentVersion}${n.agentOutdated ? ` (outdated; latest ${bundle?.version})` : ''}` : '';
      console.log(
        `${n.online ? 'online ' : 'offline'}  ${n.name}${n.isLocal ? ' (this computer)' : ''}  id ${n.id}  sessions open ${n.openSessions}${version}`,
      );
      if (n.updateCommand) console.log(`         update it there with:\n  ${n.updateCommand}`);
      for (const t of n.tokens) console.log(`         token ${t.id}${t.label ? ` (${t.label})` : ''} created ${t.createdAt.toISOString()}`);
    }
  } else if (verb === 'add') {
    const added = await addComputer({ db, name: arg!, hubPublicUrl, bundle, hubCa });
    console.log(
      `Added "${added.name}" (node ${added.nodeId}). Its token is shown only now.\nOn that computer (Node.js >= 20 and tmux) run:\n  ${added.command}`,
    );
    if (isInsecureRemote(hubPublicUrl))
      console.log(
        `WARNING: ${hubPublicUrl} is not encrypted (BRIA_HUB_TLS=off), so the agent runs with --insecure: its token crosses the network readable. Remove BRIA_HUB_TLS=off to use Bria's own TLS.`,
      );
  } else if (verb === 'enable-local') {
    // This computer's token was revoked: a fresh one for the same node, used by the next `npm start`.
    const r = await enableLocalAgent(db, dataDir);
    console.log(`"${r.name}" (this computer) is enabled again. Start Bria (npm start; restart it if it is running) to connect its agent.`);
  } else {
    const r = await revokeToken({ db, tokenId: arg! });
    console.log(`Revoked token ${r.tokenId}; its agent is disconnected.`);
  }
} catch (err) {
  console.error(`bria nodes: ${(err as Error).message}`);
  code = 1;
} finally {
  await close();
}
process.exit(code);
