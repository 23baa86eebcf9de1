import type { Db } from '../client.ts';
import type { AgentEventFrame } from '../../protocol/index.ts';

/**
 * Stores an agent event once by (node, seq) and advances the node's high-water mark only over a
 * contiguous run, so the cumulative ack the hub sends never covers an event it did not store.
 * Returns the seq that may be acknowledged.
 */
export async function storeAgentEvent(db: Db, nodeId: string, ev: AgentEventFrame): Promise<{ ackUpTo: bigint; stored: boolean }> {
  return db.$transaction(async (tx) => {
    const node = await tx.node.findUniqueOrThrow({ where: { id: nodeId }, select: { lastEventSeq: true } });
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
        nodeId, seq, type: ev.event, sessionId: ev.sessionId ?? null, commandId: ev.commandId ?? null,
        payload: { at: ev.at, commandId: ev.commandId ?? null, sessionId: ev.sessionId ?? null, generation: ev.generation ?? null, data: ev.payload } as object,
      },
    });
    if (ev.event === 'command_result' && ev.commandId !== undefined) {
      // An answer proves the agent received the command: it is never sent again, even when its
      // command_ack was lost with a connection. The agent's ledger relies on this to forget an id
      // once this event is acknowledged (docs/architecture.md, "Retention").
      await tx.agentCommand.updateMany({ where: { id: ev.commandId, nodeId, status: { in: ['pending', 'sent'] } }, data: { status: 'acked', ackedAt: new Date() } });
    }
    await tx.node.update({ where: { id: nodeId }, data: { lastEventSeq: seq }, select: { id: true } });
    await tx.$executeRaw`select pg_notify('bria_agent_events', ${nodeId})`;
    return { ackUpTo: seq, stored: true };
  });
}

function isReadJournalResult(ev: AgentEventFrame): ev is AgentEventFrame & { commandId: string } {
  return ev.event === 'command_result' && ev.commandId !== undefined && ev.payload.command === 'read_journal';
}
