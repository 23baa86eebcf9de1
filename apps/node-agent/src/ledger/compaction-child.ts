// Test helper (not a test): opens a ledger in a separate process so a test can SIGKILL it at a
// named point of a compaction (BRIA_AGENT_TEST_CRASH=ledger:commands:… / ledger:events:…, see
// replace-file.ts). Usage: node --import tsx compaction-child.ts <dir> <nowMs> [ack <seq>]
import { Ledger } from './ledger.ts';

const [dir, nowArg, op, arg] = process.argv.slice(2);
const ledger = new Ledger(dir!, () => 'child-instance', {
  unchecked: true,
  now: () => Number(nowArg),
  retention: { keepDoneMs: 7 * 24 * 3600_000, keepLastDone: 5 },
});
if (op === 'ack') ledger.ack(Number(arg));
process.stdout.write(JSON.stringify(ledger.stats()));
