// The hub alone in its own process, as in production (packages/core/src/hub/main.ts): the agents'
// WebSocket server and the session engine beside it, so the chaos suite's SIGKILL takes both down
// at once (no goodbye to the agents, nodes left "online", an engine transaction cut anywhere) and
// starts them again on the same port (on a new one when that is taken: the harness passes 0 and reads
// the port from the ready line), and the Web Push sender as main.ts runs it. The final-save fault reaches the engine through a file: while
// the time (ms since the epoch) written in it lies ahead, every final write is refused.
// Usage: tsx tests/chaos/hub-child.ts <database url> <port> <final-save fault file>
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createDb } from '../../packages/core/src/db/client.ts';
import { finalSaveFaults } from '../../packages/core/src/db/repos/messages.ts';
import { startEngine } from '../../packages/core/src/engine/start-engine.ts';
import { PushSender } from '../../packages/core/src/hub/push-sender.ts';
import { Hub } from '../../packages/core/src/hub/server.ts';

const { positionals } = parseArgs({ allowPositionals: true });
const [url, port, faultFile] = positionals;
if (!url || !port || !faultFile) throw new Error('usage: hub-child.ts <database url> <port> <final-save fault file>');
const refuseUntil = (): number => {
  try {
    return Number(readFileSync(faultFile, 'utf8')) || 0;
  } catch {
    return 0;
  }
};
finalSaveFaults.hook = () => {
  if (Date.now() < refuseUntil()) throw new Error('chaos: final save refused (simulated full disk)');
};
// Warnings go to the run's folder (`hub.log`, beside the fault file): a reconnect is then named by the
// hub's own reading (a lost heartbeat, a late beat, a refused frame).
const log = pino({ level: 'warn' }, pino.destination({ dest: path.join(path.dirname(faultFile), 'hub.log'), append: true, sync: true }));
const db = createDb(url, { max: 8 });
const hub = new Hub({ db, databaseUrl: url, host: '127.0.0.1', port: Number(port), heartbeatMs: 500, log });
await hub.start();
await startEngine({ db, databaseUrl: url, log, safetyPollMs: 500, timerPollMs: 200, nodePollMs: 300 });
// Web Push beside them, as in production (the `push_fail` fault's devices point at the run's local push service).
await new PushSender({ db, databaseUrl: url, log }).start();
process.stdout.write(`hub-ready ${hub.port}\n`);
