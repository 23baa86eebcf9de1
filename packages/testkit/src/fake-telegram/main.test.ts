import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';

const tsx = fileURLToPath(new URL('../../../../node_modules/.bin/tsx', import.meta.url));
const main = fileURLToPath(new URL('./main.ts', import.meta.url));

it('the standalone entry prints its apiRoot, serves the token it was given and exits on SIGTERM', async () => {
  const child = spawn(tsx, [main, '--port', '0', '--token', '555:standalone-secret'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const lines = createInterface({ input: child.stdout });
    const [apiRoot] = (await once(lines, 'line')) as [string];
    expect(apiRoot).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const me = (await (await fetch(`${apiRoot}/bot555:standalone-secret/getMe`)).json()) as { result: { id: number } };
    expect(me.result.id).toBe(555);
    expect((await fetch(`${apiRoot}/bot556:other/getMe`)).status).toBe(401);
  } finally {
    child.kill('SIGTERM');
  }
  const [code] = await once(child, 'exit');
  expect(code).toBe(0);
});
