import type { Db } from '../client.ts';

/** A dead letter keeps at most this many characters of the frame it records. */
export const DEAD_LETTER_EXCERPT_CHARS = 2_000;

/**
 * Records a frame of an agent the hub could not accept (docs/reliability.md, "Dead letters"). When
 * the frame named an event seq that is the node's next one, the mark moves past it in the same
 * transaction, so the acknowledgement the hub sends lets the agent drop it; a seq already past is
 * recorded once only (a replay of the same frame). Returns the seq the hub may acknowledge.
 */
export async function recordDeadLetter(
  db: Db,
  o: { nodeId: string; reason: string; raw: string; bytes: number; seq?: number },
): Promise<{ ackUpTo: bigint; recorded: boolean }> {
  return db.$transaction(async (tx) => {
    const [node] = await tx.$queryRaw<{ lastEventSeq: bigint }[]>`select "lastEventSeq" from "Node" where id = ${o.nodeId}::uuid for update`;
    if (!node) throw new Error(`node ${o.nodeId} not found`);
    const seq = o.seq === undefined ? null : BigInt(o.seq);
    if (seq !== null && seq <= node.lastEventSeq) return { ackUpTo: node.lastEventSeq, recorded: false };
    await tx.agentDeadLetter.create({
      data: { nodeId: o.nodeId, seq, reason: storable(o.reason).slice(0, 1000), excerpt: storable(o.raw.slice(0, DEAD_LETTER_EXCERPT_CHARS)), bytes: o.bytes },
      select: { id: true },
    });
    if (seq !== null && seq === node.lastEventSeq + 1n) {
      await tx.node.update({ where: { id: o.nodeId }, data: { lastEventSeq: seq }, select: { id: true } });
      return { ackUpTo: seq, recorded: true };
    }
    return { ackUpTo: node.lastEventSeq, recorded: true };
  });
}

/** Dead letters of a node, newest first (tests, the dashboard's diagnostics). */
export async function listDeadLetters(db: Db, nodeId: string, take = 100) {
  return db.agentDeadLetter.findMany({
    where: { nodeId },
    orderBy: { id: 'desc' },
    take,
    select: { id: true, seq: true, reason: true, excerpt: true, bytes: true, receivedAt: true },
  });
}

/** Postgres text cannot hold NUL: shown as the escape instead. */
export function storable(s: string): string {
  return s.replaceAll('\0', '\\u0000');
}
