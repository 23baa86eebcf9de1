import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeAgentEvent } from '../db/repos/agent-events.ts';
import { acceptMessage, createSession } from '../services/sessions/index.ts';
import { type Engine, startEngine } from './start-engine.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
let second: Engine;
beforeEach(async () => {
  rig = await engineRig();
  second = await startEngine({ db: rig.db, databaseUrl: rig.tdb.url, log: pino({ level: 'silent' }), clock: rig.clock, safetyPollMs: 60_000, timerPollMs: 60_000, nodePollMs: 60_000 });
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
      await storeAgentEvent(rig.db, rig.nodeId, { type: 'event', seq, at: rig.clock.t, event: 'session_ready', sessionId: s.id, generation: 1, payload: { identity: { pid: seq } } });
    }
    for (const [i, s] of sessions.entries()) {
      seq += 1;
      await storeAgentEvent(rig.db, rig.nodeId, { type: 'event', seq, at: rig.clock.t, event: 'turn_accepted', sessionId: s.id, generation: 1, payload: { messageId: messages[i]?.message.id, nativeRecordId: `r${i}` } });
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
});
