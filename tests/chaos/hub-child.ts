// The hub alone in its own process, so the chaos suite can SIGKILL it (no goodbye to the agents,
// nodes left "online" in the database) and start it again on the same port. The session engine
// stays in the suite's process, where the final-save test seam can reach it.
// Usage: tsx tests/chaos/hub-child.ts <database url> <port>
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createDb } from '../../packages/core/src/db/client.ts';
import { Hub } from '../../packages/core/src/hub/server.ts';

const { positionals } = parseArgs({ allowPositionals: true });
const [url, port] = positionals;
if (!url || !port) throw new Error('usage: hub-child.ts <database url> <port>');
const db = createDb(url, { max: 4 });
const hub = new Hub({ db, databaseUrl: url, host: '127.0.0.1', port: Number(port), heartbeatMs: 500, log: pino({ level: 'silent' }) });
await hub.start();
process.stdout.write('hub-ready\n');
