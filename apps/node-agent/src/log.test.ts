import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { agentLogger } from './log.ts';

function collect(level: string) {
  const out = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  out.on('data', (chunk: Buffer) => {
    for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
  });
  return { ...agentLogger({ level, destination: out }), lines };
}

describe('agent log', () => {
  it('writes pino lines named agent with the fields the caller gave', async () => {
    const { log, lines } = collect('info');
    log('warn', 'agent.command_failed', { sessionId: 's1', code: 'busy' });
    log('info', 'agent.online', { nodeId: 'n1' });
    await expect.poll(() => lines.length).toBe(2);
    expect(lines[0]).toMatchObject({ level: 40, name: 'agent', msg: 'agent.command_failed', sessionId: 's1', code: 'busy' });
    expect(lines[1]).toMatchObject({ level: 30, name: 'agent', msg: 'agent.online', nodeId: 'n1' });
    expect(typeof lines[0]?.time).toBe('number');
  });

  it('redacts like the other processes and honours the level', async () => {
    const { log, lines } = collect('warn');
    log('info', 'not written', { nodeId: 'n1' });
    log('error', 'agent.refused', { token: 'secret-token-value' });
    await expect.poll(() => lines.length).toBe(1);
    expect(lines[0]).toMatchObject({ level: 50, msg: 'agent.refused', token: '[redacted]' });
  });
});
