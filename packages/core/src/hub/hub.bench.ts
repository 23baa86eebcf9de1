/**
 * Benchmark: one hub holding N simulated agents with heartbeats.
 * Measures the hub process's RSS and CPU while idle (only heartbeats flowing).
 *   npx tsx packages/core/src/hub/hub.bench.ts [--agents 1000] [--idle-seconds 30] [--heartbeat-ms 10000]
 * Prints one JSON line. Goals: RSS < 300 MB, idle CPU < 5 %.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { createTestDatabase } from '../../../testkit/src/postgres.ts';
import { createDb } from '../db/client.ts';
import { freePort } from '../db/embedded-postgres.ts';
import { createNodeWithToken } from '../db/repos/nodes.ts';

const { values } = parseArgs({
  options: {
    agents: { type: 'string', default: '1000' },
    'idle-seconds': { type: 'string', default: '30' },
    'heartbeat-ms': { type: 'string', default: '10000' },
  },
});
const agents = Number(values.agents);
const idleSeconds = Number(values['idle-seconds']);
const heartbeatMs = Number(values['heartbeat-ms']);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

const tdb = await createTestDatabase();
const db = createDb(tdb.url);
const tokens: string[] = [];
for (let i = 0; i < agents; i++) tokens.push((await createNodeWithToken(db, { name: `sim-${i}` })).token);

const port = await freePort();
const hub = spawn(path.join(root, 'node_modules/.bin/tsx'), [path.join(root, 'packages/core/src/hub/main.ts')], {
  env: { ...process.env, DATABASE_URL: tdb.url, BRIA_HUB_PORT: String(port), BRIA_HEARTBEAT_MS: String(heartbeatMs), LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'inherit', 'inherit'],
});
// tsx runs the hub in a child node process; measure that one.
async function hubNodePid(): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const kids = readFileSync(`/proc/${hub.pid}/task/${hub.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    if (kids.length) return kids[0]!;
    await new Promise((r) => setTimeout(r, 100));
  }
  return hub.pid!;
}
const until = Date.now() + 30_000;
while (Date.now() < until) {
  try {
    if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
  } catch {}
  await new Promise((r) => setTimeout(r, 100));
}
const pid = await hubNodePid();
const cpuTicks = () => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(f[11]) + Number(f[12]);
};
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

const t0 = Date.now();
const sockets: WebSocket[] = [];
let online = 0;
await Promise.all(
  tokens.map(
    (token, i) =>
      new Promise<void>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/agent`, { headers: { authorization: `Bearer ${token}` } });
        sockets.push(ws);
        ws.on('open', () =>
          ws.send(
            JSON.stringify({ type: 'hello', protocol: 1, agentVersion: 'bench', instanceId: `i${i}`, hostname: `h${i}`, executors: [], lastEventSeq: 0 }),
          ),
        );
        ws.on('message', (raw) => {
          const m = JSON.parse(raw.toString()) as { type: string; t?: number };
          if (m.type === 'welcome') {
            online++;
            resolve();
          } else if (m.type === 'ping') ws.send(JSON.stringify({ type: 'pong', t: m.t }));
        });
        ws.on('error', reject);
      }),
  ),
);
const connectMs = Date.now() - t0;
const dbOnline = await db.node.count({ where: { online: true } });
await new Promise((r) => setTimeout(r, 3_000));
const ticksBefore = cpuTicks();
const start = Date.now();
let peakRss = rssMb();
while (Date.now() - start < idleSeconds * 1000) {
  await new Promise((r) => setTimeout(r, 1000));
  peakRss = Math.max(peakRss, rssMb());
}
const cpuPct = ((cpuTicks() - ticksBefore) / 100 / ((Date.now() - start) / 1000)) * 100;
console.log(
  JSON.stringify({
    bench: 'hub_agents',
    agents,
    online,
    dbOnline,
    heartbeatMs,
    connectAllMs: connectMs,
    idleSeconds,
    hubRssMb: Math.round(peakRss),
    hubIdleCpuPct: Number(cpuPct.toFixed(2)),
  }),
);
for (const ws of sockets) ws.terminate();
hub.kill('SIGTERM');
await new Promise((r) => hub.once('exit', r));
await db.$disconnect();
await tdb.drop();
process.exit(0);
