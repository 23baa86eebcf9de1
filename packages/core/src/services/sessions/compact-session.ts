import { randomUUID } from 'node:crypto';
import { AppError, summarizeQueue } from '../../domain/index.ts';
import { recordEvidence } from '../../db/repos/evidence.ts';
import { listQueue } from '../../db/repos/messages.ts';
import { insertSessionCommand, lockSession } from '../../db/repos/sessions.ts';
import { withSessionTx } from '../../engine/step/step-context.ts';
import { depsOf, type ServiceDeps } from './session-dto.ts';

/**
 * "Compact the context": the CLI's own `/compact` (both CLIs summarise the conversation into a
 * shorter context; the session and its native id stay). Asked only while the session is Ready with
 * nothing waiting or in flight and no question open, so it never runs into a turn or a dialog; the
 * agent types it after its earlier commands and answers with what the CLI's journal recorded (the
 * chats hear it: outbox `compacted`). Commands that would replace or fork the session (`/clear`,
 * `/new`, `/resume` of another id) are not offered at all (protocol `cliTextRefusal`).
 */
export async function compactSession(deps: ServiceDeps, input: { sessionId: string }): Promise<{ commandId: string }> {
  const d = depsOf(deps);
  return withSessionTx(d.db, d, async (ctx) => {
    const row = await lockSession(ctx.tx, input.sessionId);
    if (!row) throw new AppError('NOT_FOUND', { message: 'session not found' });
    const node = await ctx.tx.node.findUnique({ where: { id: row.nodeId }, select: { online: true, agentCapabilities: true } });
    if (!node?.online) throw new AppError('NODE_OFFLINE', { message: 'node offline', userMessage: 'sessions.node_offline' });
    if (!node.agentCapabilities.includes('compact_context'))
      throw new AppError('NOT_IMPLEMENTED', { message: 'the agent does not know compact_context', userMessage: 'sessions.compact_agent_too_old' });
    const q = summarizeQueue(await listQueue(ctx.tx, row.id));
    if (row.state !== 'Ready' || q.inFlight || q.waiting || row.openPrompts > 0) {
      throw new AppError('CONFLICT', { message: `compact refused in ${row.state}`, userMessage: 'sessions.compact_busy' });
    }
    const commandId = randomUUID();
    await insertSessionCommand(ctx.tx, {
      id: commandId,
      nodeId: row.nodeId,
      sessionId: row.id,
      type: 'compact_context',
      payload: { generation: row.observerGeneration },
    });
    await recordEvidence(ctx.tx, {
      sessionId: row.id,
      event: 'compact_requested',
      actor: 'user',
      from: row.state,
      to: row.state,
      at: ctx.now,
      evidence: { commandId },
    });
    return { commandId };
  });
}
