import { deliverCommand, pumpDecision } from '../../domain/index.ts';
import { leaseMessage, readPumpView } from '../../db/repos/messages.ts';
import { getSessionRow, lockSession } from '../../db/repos/sessions.ts';
import { ATTACHMENT_UNREADABLE, AttachmentUnreadable, failAttachmentMessage } from './carry-attachments.ts';
import { sendSessionCommand } from './session-commands.ts';
import { applyEvent } from './session-step.ts';
import type { StepContext } from './step-context.ts';
import { readSpendHold, wakeAtReset } from './usage.ts';

export const DISPATCHER_ID = 'engine';

/**
 * Hands the next deliverable message to the agent when the domain gates allow, and tells the
 * machine when work drained. Runs in the caller's transaction under the session lock, so two
 * dispatchers can never lease one message or reorder a session's queue.
 * Returns the ids of messages leased.
 */
export async function pumpQueue(ctx: StepContext, sessionId: string): Promise<string[]> {
  for (let i = 0; i < 16; i++) {
    // The session lock is taken here, not assumed: a pump woken by a stored message (`pumpSession`)
    // has no event that locked the row first, and without it two pumps (this engine's wake and
    // another transaction's event) could both pick the same pending message; the loser's
    // conditional lease then found 0 rows and its transaction failed with "lease lost".
    // Within a transaction that already holds the lock this is a re-lock and costs nothing more.
    const row = i === 0 ? await lockSession(ctx.tx, sessionId) : await getSessionRow(ctx.tx, sessionId);
    if (!row) return [];
    const view = await readPumpView(ctx.tx, sessionId);
    if (!view) return [];
    const pumpRow = { ...row, turnAsked: view.row.turnAsked };
    let decision = pumpDecision(pumpRow, view.queue, view.hold, ctx.now, DISPATCHER_ID);
    if (decision.kind === 'deliver') {
      // Limits and money are read only when a message would go: a usage limit until its reset or a
      // budget reached holds it (domain/spend-gate.ts); the decision is then taken again with the hold.
      const spend = await readSpendHold(ctx.tx, row, ctx.now);
      if (spend) {
        await wakeAtReset(ctx.tx, sessionId, spend);
        decision = pumpDecision(pumpRow, view.queue, view.hold, ctx.now, DISPATCHER_ID, spend);
      }
    }
    if (decision.kind === 'deliver') {
      const { d } = decision;
      const mainMessageId = d.mode === 'follow_up' ? d.mainMessageId : null;
      const commandId = await sendSessionCommand(ctx.tx, row, deliverCommand(d, row.observerGeneration)).catch(async (err: unknown) => {
        if (!(err instanceof AttachmentUnreadable)) throw err;
        await failAttachmentMessage(ctx, row, d.message.id, ATTACHMENT_UNREADABLE, err.message);
        return null;
      });
      // Never handed over: the message is failed as an attachment problem and the queue moves on.
      if (commandId === null) continue;
      if (!(await leaseMessage(ctx.tx, d.message.id, commandId, mainMessageId))) throw new Error('lease lost under the session lock');
      // One acceptance at a time: nothing else is deliverable until this receipt arrives.
      return [d.message.id];
    }
    if (decision.kind === 'none') return [];
    const r = await applyEvent(ctx, sessionId, { type: 'work_drained' }, 'hub');
    if (!r.ok) return [];
  }
  ctx.log.warn({ sessionId }, 'engine.pump_not_settled');
  return [];
}
