import type { Db } from '../db/client.ts';
import { markStaleNodesOffline, touchNodes } from '../db/repos/nodes.ts';
import type { Logger } from '../log.ts';
import { type HeartbeatJudge, SILENT_BEATS } from '../protocol/index.ts';
import type { AgentConnection } from './agent-connection.ts';

/**
 * One beat of the hub (protocol/heartbeat.ts for the rule): drops agents silent for three intervals
 * (unless this beat came late), pings the rest, refreshes their nodes' `lastSeenAt` in one statement
 * whatever their number, and marks offline the nodes no connection of this hub vouches for.
 */
export function hubBeat(o: { judge: HeartbeatJudge; connections: Iterable<AgentConnection>; db: Db; log: Logger; now: Date; heartbeatMs: number }): void {
  const t = Date.now();
  const { lateMs, silent } = o.judge.beat(t);
  if (lateMs !== null) o.log.warn({ lateMs }, 'hub.heartbeat_late');
  const alive: string[] = [];
  for (const conn of o.connections) {
    if (silent(conn.lastHeard)) {
      conn.log.warn({ silentMs: t - conn.lastHeard }, 'hub.agent_heartbeat_lost');
      conn.ws.terminate();
      continue;
    }
    conn.send({ type: 'ping', t });
    if (conn.helloDone) alive.push(conn.nodeId);
  }
  if (alive.length) void touchNodes(o.db, alive, o.now).catch(() => {});
  const staleBefore = new Date(o.now.getTime() - SILENT_BEATS * o.heartbeatMs);
  void markStaleNodesOffline(o.db, staleBefore, o.now, alive).catch(() => {});
}
