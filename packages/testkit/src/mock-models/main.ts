// Standalone mock model servers for manual runs and load tests:
//   tsx packages/testkit/src/mock-models/main.ts --anthropic-port 4010 --openai-port 4020 --log-dir DIR
// Prints one JSON line with both base URLs once listening; SIGINT/SIGTERM close both cleanly.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startAnthropicMock } from './anthropic-mock.ts';
import { startOpenAIMock } from './openai-mock.ts';

const { values } = parseArgs({
  options: {
    'anthropic-port': { type: 'string', default: '4010' },
    'openai-port': { type: 'string', default: '4020' },
    'log-dir': { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
    'slow-chunks': { type: 'string' },
    'slow-chunk-ms': { type: 'string' },
  },
});

function int(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`--${name} must be a non-negative integer, got ${raw}\n`);
    process.exit(2);
  }
  return n;
}

const logDir = values['log-dir'];
const common = {
  host: values.host,
  slowChunks: int('slow-chunks', values['slow-chunks']),
  slowChunkMs: int('slow-chunk-ms', values['slow-chunk-ms']),
};
const anthropic = await startAnthropicMock({
  ...common,
  port: int('anthropic-port', values['anthropic-port']),
  logFile: logDir ? join(logDir, 'anthropic-requests.jsonl') : undefined,
});
const openai = await startOpenAIMock({
  ...common,
  port: int('openai-port', values['openai-port']),
  logFile: logDir ? join(logDir, 'openai-requests.jsonl') : undefined,
});
process.stdout.write(`${JSON.stringify({ anthropic: anthropic.url, openai: openai.url, logDir: logDir ?? null })}\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await Promise.all([anthropic.close(), openai.close()]);
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
