import { randomUUID } from 'node:crypto';
import type { Db } from '../client.ts';
import { AppError } from '../../domain/errors.ts';
import { commandSizeRefusal, type CommandType } from '../../protocol/index.ts';

export interface QueuedCommand {
  id: string;
  nodeId: string;
  sessionId: string | null;
  type: string;
  payload: unknown;
  createdAt: Date;
}

/** Stores a command durably and wakes the hub holding that node's connection. */
export async function enqueueCommand(
  db: Db,
  opts: { nodeId: string; sessionId?: string; type: CommandType; payload: Record<string, unknown>; id?: string },
): Promise<string> {
  const id = opts.id ?? randomUUID();
  refuseOversizeCommand(opts.type, opts.payload);
  await db.$transaction([
    db.agentCommand.create({ data: { id, nodeId: opts.nodeId, sessionId: opts.sessionId ?? null, type: opts.type, payload: opts.payload as object } }),
    db.$executeRaw`select pg_notify('bria_agent_commands', ${opts.nodeId})`,
  ]);
  return id;
}

/** Commands the agent has not acknowledged yet, oldest first (re-sent after every reconnect). */
export async function unackedCommands(db: Db, nodeId: string, limit = 200): Promise<QueuedCommand[]> {
  return db.agentCommand.findMany({
    where: { nodeId, status: { in: ['pending', 'sent'] } },
    orderBy: { createdAt: 'asc' },
    take: limit,
    select: { id: true, nodeId: true, sessionId: true, type: true, payload: true, createdAt: true },
  });
}

export async function markCommandsSent(db: Db, ids: string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.agentCommand.updateMany({ where: { id: { in: ids }, status: 'pending' }, data: { status: 'sent', sentAt: now } });
  await db.agentCommand.updateMany({ where: { id: { in: ids } }, data: { attempts: { increment: 1 } } });
}

export async function markCommandAcked(db: Db, nodeId: string, id: string, now: Date): Promise<void> {
  await db.agentCommand.updateMany({ where: { id, nodeId, status: { in: ['pending', 'sent'] } }, data: { status: 'acked', ackedAt: now } });
}

/** The agent's `command_result` for a command, once the hub has stored it (null until then). */
export async function findCommandResult(db: Db, nodeId: string, commandId: string): Promise<Record<string, unknown> | null> {
  const rows = await db.$queryRaw<{ payload: { data?: Record<string, unknown> } }[]>`
    select payload from "AgentEvent"
    where "commandId" = ${commandId}::uuid and type = 'command_result' and "nodeId" = ${nodeId}::uuid
    limit 1`;
  return rows[0]?.payload.data ?? null;
}

/** A command too large for one frame is never stored (it would close the agent's connection on every send). */
export function refuseOversizeCommand(type: string, payload: Record<string, unknown>): void {
  const refusal = commandSizeRefusal(type, payload);
  if (refusal) throw new AppError('INVALID_INPUT', { message: refusal, reason: 'too_long' });
}
