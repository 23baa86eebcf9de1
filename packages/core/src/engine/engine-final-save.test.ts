import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { finalSaveFaults } from '../db/repos/messages.ts';
import { listOutbox } from '../db/repos/outbox.ts';
import { acceptMessage, createSession } from '../services/index.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
const lines: string[] = [];
beforeEach(async () => {
  lines.length = 0;
  rig = await engineRig({ logLines: lines });
});
afterEach(async () => {
  finalSaveFaults.hook = null;
  await rig.close();
});

describe('final-save failure', () => {
  it('retries only the write after 1, 2, 4 s, blocks the queue, never duplicates, one notice each way', async () => {
    const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'codex', folder: '/work/proj', chatId: rig.chatId });
    await rig.emit(s.id, 'session_ready', { identity: { nativeSessionId: 'codex-native-1', pid: 5 } });
    expect((await rig.session(s.id)).nativeSessionId).toBe('codex-native-1');
    const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'job', source: 'web' });
    await rig.engine.settle();
    await rig.emit(s.id, 'turn_accepted', { messageId: a.message.id, nativeTurnId: 'turn-1' });

    let attempts = 0;
    finalSaveFaults.hook = () => {
      attempts += 1;
      const err = new Error('No space left on device');
      err.name = 'DiskFull';
      throw err;
    };
    await rig.emit(s.id, 'turn_final', { nativeTurnId: 'turn-1', text: 'SECRET-FINAL-TEXT' });
    await rig.emit(s.id, 'turn_completed', { nativeTurnId: 'turn-1' });
    const b = await acceptMessage(rig.deps, { sessionId: s.id, text: 'next', source: 'web' });
    await rig.engine.settle();
    let row = await rig.session(s.id);
    expect(row.state).toBe('Running');
    expect((await rig.messages(s.id)).map((m) => m.status)).toEqual(['accepted', 'pending']);
    expect(attempts).toBe(1);
    const timer = await rig.db.sessionTimer.findFirstOrThrow({ where: { sessionId: s.id, name: 'final_save_retry' } });
    expect(timer.dueAt.getTime() - rig.clock.t).toBe(1000);

    for (const [delay, expectedAttempts] of [
      [1000, 2],
      [2000, 3],
      [4000, 4],
    ] as const) {
      rig.clock.advance(delay - 1);
      await rig.engine.settle();
      expect(attempts).toBe(expectedAttempts - 1);
      rig.clock.advance(1);
      await rig.engine.settle();
      expect(attempts).toBe(expectedAttempts);
    }
    row = await rig.session(s.id);
    expect(row.state).toBe('Running');
    expect((await rig.commands(s.id)).filter((c) => c.type === 'deliver')).toHaveLength(1);

    finalSaveFaults.hook = null;
    rig.clock.advance(8000);
    await rig.engine.settle();
    row = await rig.session(s.id);
    const msgs = await rig.messages(s.id);
    expect(msgs[0]?.finalText).toBe('SECRET-FINAL-TEXT');
    expect(msgs[0]?.status).toBe('completed');
    expect(row.pendingFinalEventId).toBeNull();
    // The waiting message goes next, as a new main request.
    expect(msgs[1]?.id).toBe(b.message.id);
    expect(msgs[1]?.status).toBe('leased');
    const out = await listOutbox(rig.db, { sessionId: s.id });
    expect(out.filter((o) => o.kind === 'final')).toHaveLength(1);
    expect(out.filter((o) => o.kind === 'final_save').map((o) => (o.payload.kind === 'final_save' ? o.payload.phase : ''))).toEqual(['failing', 'recovered']);
    // The failing notice says why in a few safe words (the bot shows "could not be saved yet (<cause>)").
    expect(out.filter((o) => o.kind === 'final_save').map((o) => (o.payload.kind === 'final_save' ? (o.payload.cause ?? null) : ''))).toEqual([
      'server disk full',
      null,
    ]);
    const failures = lines.filter((l) => l.includes('session.final_save persist_failed'));
    expect(failures).toHaveLength(4);
    expect(lines.join('\n')).not.toContain('SECRET-FINAL-TEXT');
    expect(lines.join('\n')).not.toContain('/work/proj');
    // A late duplicate of the same final never makes a second copy.
    await rig.emit(s.id, 'turn_final', { nativeTurnId: 'turn-1', text: 'SECRET-FINAL-TEXT' });
    expect(await listOutbox(rig.db, { sessionId: s.id, kind: 'final' })).toHaveLength(1);
  });

  it('a turn end replayed after the final is saved ends only the prompts reported before it, not the request of the next turn (chaos seed 70012)', async () => {
    const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/proj', chatId: rig.chatId });
    await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100, pidStartTime: '1' } });
    const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'first', source: 'web' });
    await rig.engine.settle();
    await rig.emit(s.id, 'turn_accepted', { messageId: a.message.id, nativeRecordId: 'rec-1' });
    // A follow-up typed into the running turn; Claude runs it as a turn of its own after the first.
    const b = await acceptMessage(rig.deps, { sessionId: s.id, text: 'follow-up', source: 'web' });
    await rig.engine.settle();
    expect((await rig.commands(s.id)).filter((c) => c.type === 'deliver').map((c) => c.payload.messageId)).toEqual([a.message.id, b.message.id]);
    await rig.emit(s.id, 'turn_accepted', { messageId: b.message.id, nativeRecordId: 'rec-2' });
    const ask = async () => {
      const requestId = randomUUID();
      await rig.emit(s.id, 'permission_request', {
        requestId,
        executor: 'claude',
        kind: 'tool',
        toolName: 'Bash',
        toolInput: { command: 'ls' },
        canAlwaysAllow: true,
        receivedAt: rig.clock.t,
        expiresAt: rig.clock.t + 600_000,
      });
      return requestId;
    };
    // A request of the first turn that nobody reported ending: the first turn's end ends it.
    const early = await ask();

    finalSaveFaults.hook = () => {
      throw new Error('Connection terminated unexpectedly');
    };
    await rig.emit(s.id, 'turn_final', { nativeTurnId: 'rec-1', text: 'answer one' });
    await rig.emit(s.id, 'turn_completed', { nativeTurnId: 'rec-1' });
    expect((await rig.session(s.id)).pendingFinalEventId).not.toBeNull();
    // The follow-up's turn asks while the first turn's end waits for its final to be saved.
    const late = await ask();
    expect((await rig.session(s.id)).openPrompts).toBe(2);

    finalSaveFaults.hook = null;
    rig.clock.advance(1000);
    await rig.engine.settle();
    const row = await rig.session(s.id);
    expect(row.pendingFinalEventId).toBeNull();
    expect((await rig.messages(s.id)).map((m) => [m.id, m.status])).toEqual([
      [a.message.id, 'completed'],
      [b.message.id, 'accepted'],
    ]);
    const prompts = await rig.db.permissionPrompt.findMany({ where: { sessionId: s.id }, select: { id: true, state: true } });
    expect(new Map(prompts.map((p) => [p.id, p.state]))).toEqual(
      new Map([
        [early, 'ended'],
        [late, 'pending'],
      ]),
    );
    expect(row.openPrompts).toBe(1);
    expect(row.state).toBe('Running');
  });
});
