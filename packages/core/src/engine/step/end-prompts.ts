import type { PromptEndCause } from '../../domain/index.ts';
import { recordEvidence } from '../../db/repos/evidence.ts';
import { endOpenPrompts, type EndPromptsScope, recountOpenPrompts } from '../../db/repos/prompts.ts';
import type { SessionRow } from '../../db/repos/sessions.ts';
import { notifyChats } from './session-notices.ts';
import { closePromptPush } from './push-notices.ts';
import type { StepContext } from './step-context.ts';

/**
 * The session's open prompts in `scope` are over: each ends with `cause` (evidence `permission_ended`),
 * `Session.openPrompts` is recounted, and the chats' request messages lose their choices (an
 * answered one's message already shows the answer). One place for every reason a prompt ends: a
 * turn's end or the CLI's exit (agent events), the archive, the user's Stop.
 */
export async function endPrompts(
  ctx: StepContext,
  row: SessionRow,
  o: { cause: PromptEndCause; actor: 'agent' | 'hub' | 'user'; seq?: bigint; scope?: EndPromptsScope },
): Promise<number> {
  const ended = await endOpenPrompts(ctx.tx, row.id, o.cause, ctx.now, o.scope);
  if (ended.length === 0) return 0;
  await recountOpenPrompts(ctx.tx, row.id);
  for (const p of ended) {
    await recordEvidence(ctx.tx, {
      sessionId: row.id,
      event: 'permission_ended',
      actor: o.actor,
      from: row.state,
      to: row.state,
      at: ctx.now,
      evidence: { ...(o.seq !== undefined ? { seq: Number(o.seq) } : {}), requestId: p.id, was: p.state, cause: o.cause },
    });
    await closePromptPush(ctx.tx, { promptId: p.id, sessionId: row.id, kind: p.kind, now: ctx.now });
    if (p.state !== 'answered') {
      await notifyChats(ctx.tx, row, ctx.now, () => ({
        key: `prompt:${p.id}:ended`,
        payload: { kind: 'prompt', sessionId: row.id, nodeId: row.nodeId, promptId: p.id, phase: 'ended' },
      }));
    }
  }
  return ended.length;
}

/** A stop is in progress: Stopping, or recovering to go back to Stopping. */
export const stopInProgress = (row: Pick<SessionRow, 'state' | 'resumeState'>): boolean =>
  row.state === 'Stopping' || (row.state === 'AwaitingRecovery' && row.resumeState === 'Stopping');

/**
 * The user's Stop ends the session's open permission requests and questions: the CLI's own interrupt
 * key (Esc) closes such a dialog as a refusal, so an answer sent after the Stop would be reported as
 * delivered while the CLI had already refused the tool (Allow pressed after Stop read "delivered",
 * and the model saw "The user doesn't want to proceed with this tool use"; docs/reliability.md). Start
 * dialogs (no turn runs then) are left alone.
 */
export function endPromptsForStop(ctx: StepContext, row: SessionRow, actor: 'user' | 'hub'): Promise<number> {
  return endPrompts(ctx, row, { cause: 'stopped', actor, scope: { kinds: 'requests' } });
}
