// Standalone fake Bot API: `tsx packages/testkit/src/fake-telegram/main.ts --port 8081 --token X`.
// Prints the apiRoot on the first line so scripts can read it.
import { parseArgs } from 'node:util';
import { startFakeTelegram } from './index.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8081' },
    token: { type: 'string' },
    'latency-ms': { type: 'string', default: '0' },
  },
});

const fake = await startFakeTelegram({
  port: Number(values.port),
  ...(values.token ? { token: values.token } : {}),
  latencyMs: Number(values['latency-ms']),
});
process.stdout.write(`${fake.apiRoot}\n`);

const stop = (): void => {
  void fake.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
