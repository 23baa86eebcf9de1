import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../ledger/ledger.ts';
import { HubClient } from './hub-client.ts';

const SESSION = '11111111-1111-4111-8111-111111111111';
const MESSAGE = '22222222-2222-4222-8222-222222222222';
// Command ids are UUIDs (the protocol's `zCommand`): the ledger refuses an answer event naming anything else.
const C1 = '33333333-3333-4333-8333-333333333331';
const C2 = '33333333-3333-4333-8333-333333333332';

function client(dir: string, answers: string[]) {
  const ledger = new Ledger(dir, () => 'instance-1');
  const c = new HubClient({
    url: 'ws://127.0.0.1:9/agent',
    token: 't',
    ledger,
    log: () => {},
    hello: () => ({ agentVersion: '0', hostname: 'h', executors: [] }),
    onCommand: async () => ({ ok: true }),
    onInterrupted: async (rec) => {
      answers.push(`${rec.command}:${rec.sessionId}:${rec.messageId}:${rec.generation}`);
      return { ok: false, delivery: 'unknown', messageId: rec.messageId };
    },
  });
  return { ledger, c };
}

describe('commands an agent died running', () => {
  it('are answered once after the restart, as interrupted, from what the ledger kept; never run again', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bria-interrupted-'));
    const first = new Ledger(dir, () => 'instance-1');
    first.recordCommand({ id: C1, command: 'deliver', receivedAt: 1, status: 'received', sessionId: SESSION, messageId: MESSAGE, generation: 3 });
    first.recordCommand({ id: C2, command: 'interrupt', receivedAt: 2, status: 'received', sessionId: SESSION, generation: 3 });
    first.recordCommand({ id: C2, command: 'interrupt', receivedAt: 3, status: 'done', sessionId: SESSION, result: { ok: true } });

    const answers: string[] = [];
    const { ledger, c } = client(dir, answers);
    expect(await c.answerAllInterrupted()).toBe(1);
    expect(answers).toEqual([`deliver:${SESSION}:${MESSAGE}:3`]);
    const ev = ledger.unacked();
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({
      event: 'command_result',
      commandId: C1,
      sessionId: SESSION,
      payload: { command: 'deliver', delivery: 'unknown', messageId: MESSAGE, interrupted: true },
    });
    expect(ledger.command(C1)?.status).toBe('done');

    // Another restart: nothing is left to answer, the answer already written is only replayed.
    const again = client(dir, answers);
    expect(await again.c.answerAllInterrupted()).toBe(0);
    expect(answers).toHaveLength(1);
    expect(again.ledger.unacked().map((e) => e.commandId)).toEqual([C1]);
  });
});
