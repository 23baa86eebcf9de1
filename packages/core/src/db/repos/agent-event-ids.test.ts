import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultMigrationsDir } from '../migrate.ts';
import { findCommandResult } from './agent-commands.ts';
import { storeAgentEvent } from './agent-events.ts';
import { createNodeWithToken } from './nodes.ts';
import { listUsageHistory } from './session-views.ts';
import { fileDatabase } from '../../../../testkit/src/file-database.ts';

// Usage history and command results are read by the event's session / command id columns (indexed),
// not by scanning the JSON payload.
const { db } = await fileDatabase();
let nodeId: string;
beforeAll(async () => {
  ({ nodeId } = await createNodeWithToken(db, { name: 'ids' }));
});

let seq = 0;
const store = (event: string, payload: Record<string, unknown>, ids: { sessionId?: string; commandId?: string }) =>
  storeAgentEvent(db, nodeId, { type: 'event', seq: ++seq, at: Date.now(), event, payload, ...ids });

describe('AgentEvent session and command id columns', () => {
  it('are written on store and serve the usage chart and command results', async () => {
    const a = randomUUID();
    const b = randomUUID();
    const cmd = randomUUID();
    await store('usage', { inputTokens: 10 }, { sessionId: a });
    await store('usage', { inputTokens: 99 }, { sessionId: b });
    await store('usage', { inputTokens: 20, contextWindowUsed: 0.5 }, { sessionId: a });
    await store('command_result', { command: 'probe', ok: true }, { commandId: cmd });
    const rows = await db.agentEvent.findMany({ orderBy: { seq: 'asc' }, select: { sessionId: true, commandId: true } });
    expect(rows).toEqual([
      { sessionId: a, commandId: null },
      { sessionId: b, commandId: null },
      { sessionId: a, commandId: null },
      { sessionId: null, commandId: cmd },
    ]);
    expect((await listUsageHistory(db, { nodeId, sessionId: a, limit: 10 })).map((p) => [p.inputTokens, p.contextWindowUsed])).toEqual([
      [10, null],
      [20, 0.5],
    ]);
    expect(await findCommandResult(db, nodeId, cmd)).toEqual({ command: 'probe', ok: true });
    expect(await findCommandResult(db, nodeId, randomUUID())).toBeNull();
  });

  it('the usage and result reads can use their indexes', async () => {
    const plan = async (sql: string) => {
      const out = await db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('set local enable_seqscan = off');
        return tx.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`explain ${sql}`);
      });
      return out.map((r) => r['QUERY PLAN']).join('\n');
    };
    const id = randomUUID();
    expect(
      await plan(
        `select id from "AgentEvent" where "sessionId" = '${id}'::uuid and type = 'usage' and "nodeId" = '${nodeId}'::uuid order by id desc limit 300`,
      ),
    ).toContain('AgentEvent_sessionId_type_id_idx');
    expect(
      await plan(`select payload from "AgentEvent" where "commandId" = '${id}'::uuid and type = 'command_result' and "nodeId" = '${nodeId}'::uuid limit 1`),
    ).toContain('AgentEvent_commandId_idx');
  });

  it('the migration fills both columns for events stored before it', async () => {
    const s = randomUUID();
    const c = randomUUID();
    await db.$executeRaw`insert into "AgentEvent" ("nodeId", seq, type, payload) values (${nodeId}::uuid, 1000, 'usage', ${JSON.stringify({ sessionId: s, commandId: c, data: {} })}::jsonb)`;
    await db.$executeRaw`insert into "AgentEvent" ("nodeId", seq, type, payload) values (${nodeId}::uuid, 1001, 'usage', ${JSON.stringify({ sessionId: 'not-a-uuid', commandId: null, data: {} })}::jsonb)`;
    const dir = readFileSync(path.join(defaultMigrationsDir, '20261202151218_agent_event_session_command_ids', 'migration.sql'), 'utf8');
    const update = /UPDATE "AgentEvent"[\s\S]*?;/.exec(dir)?.[0];
    expect(update).toBeTruthy();
    await db.$executeRawUnsafe(update!);
    const rows = await db.agentEvent.findMany({
      where: { seq: { in: [1000n, 1001n] } },
      orderBy: { seq: 'asc' },
      select: { sessionId: true, commandId: true },
    });
    expect(rows).toEqual([
      { sessionId: s, commandId: c },
      { sessionId: null, commandId: null },
    ]);
  });
});
