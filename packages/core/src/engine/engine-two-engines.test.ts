import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeAgentEvent } from '../db/repos/agent-events.ts';
import { acceptMessage, createSession } from '../services/index.ts';
import { pumpSession } from './session-work.ts';
import { type Engine, startEngine } from './start-engine.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
let second: Engine;
beforeEach(async () => {
  rig = await engineRig();
  second = await startEngine({
    db: rig.db,
    databaseUrl: rig.tdb.url,
    log: pino({ level: 'silent' }),
    clock: rig.clock,
    safetyPollMs: 60_000,
    timerPollMs: 60_000,
    nodePollMs: 60_000,
  });
});
afterEach(async () => {
  await second.stop();
  await rig.close();
});

describe('two engines on one database', () => {
  it('process every event exactly once and deliver every message once', async () => {
    const sessions = [];
    for (let i = 0; i < 6; i++) sessions.push(await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: `/p${i}` }));
    const messages = await Promise.all(sessions.map((s) => acceptMessage(rig.deps, { sessionId: s.id, text: 'go', source: 'web' })));
    let seq = 0;
    for (const s of sessions) {
      seq += 1;
      await storeAgentEvent(rig.db, rig.nodeId, {
        type: 'event',
        seq,
        at: rig.clock.t,
        event: 'session_ready',
        sessionId: s.id,
        generation: 1,
        payload: { identity: { pid: seq } },
      });
    }
    for (const [i, s] of sessions.entries()) {
      seq += 1;
      await storeAgentEvent(rig.db, rig.nodeId, {
        type: 'event',
        seq,
        at: rig.clock.t,
        event: 'turn_accepted',
        sessionId: s.id,
        generation: 1,
        payload: { messageId: messages[i]?.message.id, nativeRecordId: `r${i}` },
      });
    }
    await Promise.all([rig.engine.settle(), second.settle()]);
    await Promise.all([rig.engine.settle(), second.settle()]);
    expect(await rig.db.agentEvent.count({ where: { processedAt: null } })).toBe(0);
    for (const s of sessions) {
      expect((await rig.session(s.id)).state).toBe('Running');
      expect((await rig.commands(s.id)).filter((c) => c.type === 'deliver')).toHaveLength(1);
      const ev = await rig.db.sessionEvidence.findMany({ where: { sessionId: s.id }, select: { event: true } });
      expect(ev.filter((e) => e.event === 'cli_ready')).toHaveLength(1);
      expect(ev.filter((e) => e.event === 'turn_started')).toHaveLength(1);
    }
  });

  it('concurrent pumps of one session (wake-ups racing an event) lease the message once and none fails', async () => {
    // Before the pump took the session lock itself, a wake-up pump and another transaction's pump
    // both saw the message pending; the loser's conditional lease found 0 rows and its transaction
    // failed with "lease lost under the session lock" (seen in test logs).
    const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/race' });
    await rig.emit(s.id, 'session_ready', { identity: { pid: 7 } });
    const d = { db: rig.db, log: pino({ level: 'silent' }), clock: rig.clock, jitter: () => 0.5 };
    const m = await acceptMessage(rig.deps, { sessionId: s.id, text: 'once', source: 'web' });
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => pumpSession(d, s.id)));
    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    expect((await rig.commands(s.id)).filter((c) => c.type === 'deliver').map((c) => c.payload.messageId)).toEqual([m.message.id]);
    expect((await rig.db.message.findUniqueOrThrow({ where: { id: m.message.id } })).status).toBe('leased');
  });
});
