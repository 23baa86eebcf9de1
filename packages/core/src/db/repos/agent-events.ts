import type { Db } from '../client.ts';
import {
  EVENT_PART,
  EVENT_REFUSED,
  assembleParts,
  isGitCommand,
  zEventPart,
  zEventRefused,
  type AgentEventFrame,
  type EventPart,
} from '../../protocol/index.ts';
import { DEAD_LETTER_EXCERPT_CHARS, storable } from './dead-letters.ts';

/**
 * Stores an agent event once by (node, seq) and advances the node's high-water mark only over a
 * contiguous run, so the cumulative ack the hub sends never covers an event it did not store.
 * Returns the seq that may be acknowledged.
 */
export async function storeAgentEvent(db: Db, nodeId: string, frame: AgentEventFrame): Promise<{ ackUpTo: bigint; stored: boolean; event?: AgentEventFrame }> {
  return db.$transaction(async (tx) => {
    // The node row is locked first, so two stores for one node (a replaced connection's frames still
    // being handled while the new one replays them) run one after the other and each sees the
    // other's mark. Without the lock a read_journal answer stored twice moved the mark back over
    // events already stored, and every replay then failed on (node, seq) for ever: the node
    // reconnected a few times a second and nothing it sent was stored again.
    const [node] = await tx.$queryRaw<{ lastEventSeq: bigint }[]>`select "lastEventSeq" from "Node" where id = ${nodeId}::uuid for update`;
    if (!node) throw new Error(`node ${nodeId} not found`);
    const seq = BigInt(frame.seq);
    if (seq <= node.lastEventSeq) return { ackUpTo: node.lastEventSeq, stored: false };
    if (seq !== node.lastEventSeq + 1n) return { ackUpTo: node.lastEventSeq, stored: false };
    const advance = () => tx.node.update({ where: { id: nodeId }, data: { lastEventSeq: seq }, select: { id: true } });
    const deadLetter = async (reason: string) => {
      const excerpt = storable(JSON.stringify(frame.payload).slice(0, DEAD_LETTER_EXCERPT_CHARS));
      await tx.agentDeadLetter.create({ data: { nodeId, seq, reason: storable(reason).slice(0, 1000), excerpt, bytes: excerpt.length }, select: { id: true } });
      await advance();
      return { ackUpTo: seq, stored: false };
    };
    // The agent's ledger replaced a stored event the protocol refuses (an older agent wrote it): recorded, moved past.
    if (frame.event === EVENT_REFUSED) {
      const r = zEventRefused.safeParse(frame.payload);
      return deadLetter(r.success ? `agent ledger refused ${r.data.event}: ${r.data.reason}` : 'agent ledger refused an event');
    }
    let ev = frame;
    if (frame.event === EVENT_PART) {
      // Parts of one event have consecutive seqs: all but the last are kept (never processed) until the
      // last arrives, then replaced by the whole event at the last part's seq, exactly once.
      const part = zEventPart.parse(frame.payload);
      if (part.index < part.count - 1) {
        await tx.agentEvent.create({
          data: {
            nodeId,
            seq,
            type: EVENT_PART,
            sessionId: frame.sessionId ?? null,
            commandId: frame.commandId ?? null,
            payload: { data: part },
            processedAt: new Date(),
          },
          select: { id: true },
        });
        await advance();
        return { ackUpTo: seq, stored: true };
      }
      const earlier = await tx.agentEvent.findMany({
        where: { nodeId, type: EVENT_PART, seq: { gte: seq - BigInt(part.count - 1), lt: seq } },
        orderBy: { seq: 'asc' },
        select: { id: true, payload: true },
      });
      await tx.agentEvent.deleteMany({ where: { id: { in: earlier.map((r) => r.id) } } });
      const parts = [...earlier.map((r) => zEventPart.safeParse((r.payload as { data?: unknown } | null)?.data)), { success: true as const, data: part }];
      const whole = assembleParts(parts.flatMap((p): EventPart[] => (p.success ? [p.data] : [])).filter((p) => p.partOf === part.partOf));
      if (!whole.ok) return deadLetter(`event_part ${part.partOf}: ${whole.error}`);
      ev = { ...frame, event: whole.event, payload: whole.payload };
    }
    if (isReplyInRow(ev)) {
      // A read_journal answer holds conversation text, a git answer the user's code (diffs), and
      // each serves one waiting reader: it goes into its command's own row, which the reader deletes
      // once it has it; an answer to a read already withdrawn (row gone) is dropped. Never an
      // AgentEvent row, so nothing is left behind. The seq still advances here, so the ack and
      // replay rules are unchanged.
      await tx.agentCommand.updateMany({
        where: { id: ev.commandId, nodeId, type: ev.payload.command, status: { not: 'done' } },
        data: { status: 'done', result: ev.payload as object, doneAt: new Date() },
      });
      await advance();
      return { ackUpTo: seq, stored: true, event: ev };
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
    await advance();
    await tx.$executeRaw`select pg_notify('bria_agent_events', ${nodeId})`;
    return { ackUpTo: seq, stored: true, event: ev };
  });
}

/** Answers kept in their command's row for the one service waiting on them (read_journal, git). */
function isReplyInRow(ev: AgentEventFrame): ev is AgentEventFrame & { commandId: string; payload: { command: string } } {
  const command = ev.payload.command;
  return ev.event === 'command_result' && ev.commandId !== undefined && typeof command === 'string' && (command === 'read_journal' || isGitCommand(command));
}
