import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { fileDatabase } from '../../../../testkit/src/file-database.ts';
import { waitUntil } from '../../../../testkit/src/system.ts';
import { storeAgentEvent } from './agent-events.ts';
import { createNodeWithToken } from './nodes.ts';

// The node's event mark (lastEventSeq) never moves back. A replaced connection's frames can still be
// handled while the new connection replays the same events; the store of a read_journal answer
// (which writes no AgentEvent row, so no unique key stops it) read the mark, waited, and then wrote
// its own older seq over the newer mark. Every later replay then hit an event already stored and
// failed for ever (the agent-crash scenario: the node reconnected a few times a second).
const { db, tdb } = await fileDatabase();
let nodeId: string;
beforeAll(async () => {
  ({ nodeId } = await createNodeWithToken(db, { name: 'mark' }));
});

const usage = (seq: number) => storeAgentEvent(db, nodeId, { type: 'event', seq, at: Date.now(), event: 'usage', payload: { inputTokens: seq } });
const mark = async () => (await db.node.findUniqueOrThrow({ where: { id: nodeId }, select: { lastEventSeq: true } })).lastEventSeq;

describe('the stored event mark', () => {
  it('a store that waited behind another writer of the node never writes an older mark over a newer one', async () => {
    for (const seq of [1, 2, 3]) await usage(seq);
    const readId = randomUUID();
    await db.agentCommand.create({ data: { id: readId, nodeId, type: 'read_journal', payload: {}, status: 'sent' } });

    // Another writer of the node (the new connection storing the replayed 4, 5, 6) holds the node row.
    const other = new pg.Client({ connectionString: tdb.url });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select 1 from "Node" where id = $1 for update', [nodeId]);
      // The old connection's copy of event 4, the read_journal answer, starts meanwhile.
      const late = storeAgentEvent(db, nodeId, {
        type: 'event',
        seq: 4,
        at: Date.now(),
        event: 'command_result',
        commandId: readId,
        payload: { command: 'read_journal', ok: true, turns: [] },
      });
      // Until it waits on a lock (a row lock of the node, or, before the fix, the mark's update).
      await waitUntil(
        'the late store to wait on the node row',
        async () => {
          const r = await other.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
          return r.rows[0].n > 0;
        },
        30_000,
        20,
      );
      for (const seq of [5, 6]) {
        await other.query(`insert into "AgentEvent" ("nodeId", seq, type, payload) values ($1, $2, 'usage', '{}'::jsonb)`, [nodeId, seq]);
      }
      await other.query('update "Node" set "lastEventSeq" = 6 where id = $1', [nodeId]);
      await other.query('commit');
      expect(await late).toEqual({ ackUpTo: 6n, stored: false });
    } finally {
      await other.end();
    }

    expect(await mark()).toBe(6n);
    // The replay of 5 is a duplicate answered with the mark; the next event is stored.
    expect(await usage(5)).toEqual({ ackUpTo: 6n, stored: false });
    expect(await usage(7)).toMatchObject({ ackUpTo: 7n, stored: true, event: { seq: 7, event: 'usage' } });
    expect(await mark()).toBe(7n);
  });
});
