import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '../../../testkit/src/postgres.ts';
import { createDb, type Db } from '../db/client.ts';
import { storeAgentEvent } from '../db/repos/agent-events.ts';
import { createNodeWithToken } from '../db/repos/nodes.ts';
import { pumpIfNeeded } from './session-work.ts';
import { type Engine, startEngine } from './start-engine.ts';

/** A clock tests move by hand. */
export class ManualClock {
  constructor(public t = Date.parse('2026-12-02T10:00:00Z')) {}
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/**
 * Test rig: a fresh database, one online node with a Telegram chat, an engine on a manual clock,
 * and a fake agent that stores events exactly as the hub does (`storeAgentEvent`).
 */
export async function engineRig(o: { executors?: ('claude' | 'codex')[]; logLines?: string[] } = {}) {
  const tdb: TestDatabase = await createTestDatabase();
  const db: Db = createDb(tdb.url, { max: 8 });
  const { nodeId } = await createNodeWithToken(db, { name: 'n1' });
  await db.node.update({ where: { id: nodeId }, data: { online: true, agentInstanceId: 'agent-1', enabledExecutors: o.executors ?? ['claude', 'codex'] } });
  const chatId = 1001n;
  await db.telegramChat.create({ data: { chatId, userId: 42n } });
  const clock = new ManualClock();
  const lines = o.logLines;
  const log = lines ? pino({ level: 'debug' }, { write: (l: string) => void lines.push(l) }) : pino({ level: 'silent' });
  const running: Engine = await startEngine({
    db,
    databaseUrl: tdb.url,
    log,
    clock,
    jitter: () => 0.5,
    safetyPollMs: 60_000,
    timerPollMs: 60_000,
    nodePollMs: 60_000,
    schedulePollMs: 60_000,
  });
  // A stored message wakes its session by NOTIFY alone, which on a busy machine can arrive after
  // `settle` returned (a message then still pending where a test expects its `deliver`). Settling
  // here also pumps every session with a pending message, as the safety poll would.
  const engine: Engine = {
    ...running,
    async settle() {
      await running.settle();
      const waiting = await db.message.findMany({ where: { status: 'pending' }, distinct: ['sessionId'], select: { sessionId: true } });
      for (const w of waiting) await pumpIfNeeded({ db, log, clock, jitter: () => 0.5 }, w.sessionId);
      await running.settle();
    },
  };
  let seq = 0;
  const emit = async (sessionId: string | undefined, event: string, payload: Record<string, unknown>, generation?: number, commandId?: string) => {
    const gen =
      generation ??
      (sessionId ? (await db.session.findUniqueOrThrow({ where: { id: sessionId }, select: { observerGeneration: true } })).observerGeneration : undefined);
    seq += 1;
    await storeAgentEvent(db, nodeId, {
      type: 'event',
      seq,
      at: clock.t,
      event,
      ...(sessionId ? { sessionId } : {}),
      ...(gen === undefined ? {} : { generation: gen }),
      ...(commandId ? { commandId } : {}),
      payload,
    });
    await engine.settle();
  };
  const commands = async (sessionId: string) =>
    (await db.agentCommand.findMany({ where: { sessionId }, orderBy: [{ createdAt: 'asc' }], select: { id: true, type: true, payload: true } })).map((c) => ({
      id: c.id,
      type: c.type,
      payload: c.payload as Record<string, unknown>,
    }));
  const session = (id: string) => db.session.findUniqueOrThrow({ where: { id } });
  const messages = (sessionId: string) => db.message.findMany({ where: { sessionId }, orderBy: { seq: 'asc' } });
  return {
    db,
    tdb,
    nodeId,
    chatId,
    clock,
    log,
    engine,
    emit,
    commands,
    session,
    messages,
    deps: { db, clock, log },
    async close() {
      await engine.stop();
      await db.$disconnect();
      await tdb.drop();
    },
  };
}
export type Rig = Awaited<ReturnType<typeof engineRig>>;
