import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { postJson, readEvents } from './sse-test-client.ts';

const tsx = fileURLToPath(new URL('../../../../node_modules/.bin/tsx', import.meta.url));
const main = fileURLToPath(new URL('./main.ts', import.meta.url));

it('main.ts serves both mocks, logs to --log-dir and stops cleanly on SIGTERM', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bria-mock-main-'));
  const child = spawn(tsx, [main, '--anthropic-port', '0', '--openai-port', '0', '--log-dir', dir, '--slow-chunks', '2'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const urls = JSON.parse(line) as { anthropic: string; openai: string };
    const a = await postJson(`${urls.anthropic}/v1/messages?beta=true`, {
      stream: true,
      messages: [{ role: 'user', content: 'hi SLOW' }],
    });
    const aText = (await readEvents(a)).events.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta.text);
    expect(aText).toEqual(['MOCK-REPLY-1: you said "hi SLOW" [1/2]', ' [2/2]']);
    const o = await postJson(`${urls.openai}/v1/responses`, { stream: true, input: [{ role: 'user', content: 'yo' }] }, { 'session-id': 's1' });
    expect((await readEvents(o)).events.at(-1)?.event).toBe('response.completed');

    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    const aLog = JSON.parse(await readFile(join(dir, 'anthropic-requests.jsonl'), 'utf8'));
    expect(aLog).toMatchObject({ kind: 'turn', userText: 'hi SLOW', behaviour: 'slow' });
    const oLog = JSON.parse(await readFile(join(dir, 'openai-requests.jsonl'), 'utf8'));
    expect(oLog).toMatchObject({ kind: 'turn', userText: 'yo', sessionId: 's1' });
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});
