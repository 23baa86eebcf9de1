import type { Tx } from '../db/repos/sessions.ts';

/** An agent event as `storeAgentEvent` stored it. */
export interface StoredEvent {
  id: bigint;
  nodeId: string;
  seq: bigint;
  type: string;
  sessionId: string | null;
  generation: number | null;
  data: unknown;
  commandId?: string | null;
}

export function fromRow(r: { id: bigint; nodeId: string; seq: bigint; type: string; payload: unknown }): StoredEvent {
  const p = (r.payload ?? {}) as { sessionId?: string | null; generation?: number | null; data?: unknown; commandId?: string | null };
  return {
    id: r.id,
    nodeId: r.nodeId,
    seq: r.seq,
    type: r.type,
    sessionId: p.sessionId ?? null,
    generation: p.generation ?? null,
    data: p.data ?? {},
    commandId: p.commandId ?? null,
  };
}

const select = { id: true, nodeId: true, seq: true, type: true, payload: true } as const;

/** Oldest unprocessed event of a node; the caller holds the node's advisory lock, so order is kept. */
export async function nextUnprocessed(tx: Tx, nodeId: string): Promise<StoredEvent | null> {
  const r = await tx.agentEvent.findFirst({ where: { nodeId, processedAt: null }, orderBy: { seq: 'asc' }, select });
  return r ? fromRow(r) : null;
}

export async function loadEvent(tx: Tx, id: bigint): Promise<StoredEvent | null> {
  const r = await tx.agentEvent.findUnique({ where: { id }, select });
  return r ? fromRow(r) : null;
}

export async function markProcessed(tx: Tx, id: bigint, at: Date): Promise<void> {
  await tx.agentEvent.update({ where: { id }, data: { processedAt: at }, select: { id: true } });
}
