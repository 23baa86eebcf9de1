import type { Db } from '../client.ts';
import type { AgentEventFrame } from '../../protocol/index.ts';

/**
 * Stores an agent event once by (node, seq) and advances the node's high-water mark only over a
 * contiguous run, so the cumulative ack the hub sends never covers an event it did not store.
 * Returns the seq that may be acknowledged.
 */
export async function storeAgentEvent(db: Db, nodeId: string, ev: AgentEventFrame): Promise<{ ackUpTo: bigint; stored: boolean }> {
  return db.$transaction(async (tx) => {
    // The node row is locked first, so two stores for one node (a replaced connection's frames still
    // being handled while the new one replays them) run one after the other and each sees the
    // other's mark. Without the lock a read_journal answer stored twice moved the mark back over
    // events already stored, and every replay then failed on (node, seq) for ever: the node
    // reconnected a few times a second and nothing it sent was stored again.
    const [node] = await tx.$queryRaw<{ lastEventSeq: bigint }[]>`select "lastEventSeq" from "Node" where id = ${nodeId}::uuid for update`;
    if (!node) throw new Error(`node ${nodeId} not found`);
    const seq = BigInt(ev.seq);
    if (seq <= node.lastEventSeq) return { ackUpTo: node.lastEventSeq, stored: false };
    if (seq !== node.lastEventSeq + 1n) return { ackUpTo: node.lastEventSeq, stored: false };
    if (isReadJournalResult(ev)) {
      // A read_journal answer holds conversation text and serves one waiting reader: it goes into
      // its command's own row, which the reader deletes once it has it; an answer to a read already
      // withdrawn (row gone) is dropped. Never an AgentEvent row, so nothing is left behind. The seq
      // still advances here, so the ack and replay rules are unchanged.
      await tx.agentCommand.updateMany({
        where: { id: ev.commandId, nodeId, type: 'read_journal', status: { not: 'done' } },
        data: { status: 'done', result: ev.payload as object, doneAt: new Date() },
      });
      await tx.node.update({ where: { id: nodeId }, data: { lastEventSeq: seq }, select: { id: true } });
      return { ackUpTo: seq, stored: true };
    }
    await tx.agentEvent.create({
      data: {
        nodeId,
        seq,
        type: ev.event,
        sessionId: ev.sessionId ?? null,
        commandId: ev.commandId ?? null,
        payload: { at: ev.at, commandId: ev.commandId ?? null, sessionId: ev.sessionId ?? null, generation: ev.generation ?? null, data: ev.payload } as object,
      },
    });
    if (ev.event === 'command_result' && ev.commandId !== undefined) {
      // An answer proves the agent received the command: it is never sent again, even when its
      // command_ack was lost with a connection. The agent's ledger relies on this to forget an id
      // once this event is acknowledged (docs/architecture.md, "Retention").
      await tx.agentCommand.updateMany({
        where: { id: ev.commandId, nodeId, status: { in: ['pending', 'sent'] } },
        data: { status: 'acked', ackedAt: new Date() },
      });
    }
    await tx.node.update({ where: { id: nodeId }, data: { lastEventSeq: seq }, select: { id: true } });
    await tx.$executeRaw`select pg_notify('bria_agent_events', ${nodeId})`;
    return { ackUpTo: seq, stored: true };
  });
}

function isReadJournalResult(ev: AgentEventFrame): ev is AgentEventFrame & { commandId: string } {
  return ev.event === 'command_result' && ev.commandId !== undefined && ev.payload.command === 'read_journal';
}
