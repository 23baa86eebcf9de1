import { AppError, type HandoffEvent, handoffTransition } from '../../domain/index.ts';
import type { SessionRow } from '../../db/repos/sessions.ts';
import { acceptMessage } from './accept-message.ts';
import { resumeSession } from './resume-session.ts';
import { depsOf, type ServiceDeps, type SessionDto } from './session-dto.ts';

/**
 * The common end of "Continue here" and "Adopt in place", once their own checks passed: the agent
 * must list `capability`; the handoff moves from `desk` (with exactly the pid the user confirmed) by
 * `event`, claimed in one conditional write so a concurrent press or discovery report loses; then the
 * resume attempt goes out (the engine turns it into a take-over or an adoption from the row's
 * handoff, engine/step/session-commands.ts). A failed resume puts the row back at the desk; a message
 * sent with it waits in the queue until the session is Ready.
 */
export async function claimDeskAndResume(
  deps: ServiceDeps,
  row: SessionRow,
  input: { pid: number; text?: string; source: 'web' | 'telegram'; sourceKey?: string },
  how: { capability: string; unsupported: { message: string; userMessage: string }; event: HandoffEvent },
): Promise<SessionDto> {
  const { db, clock } = depsOf(deps);
  const node = await db.node.findUnique({ where: { id: row.nodeId }, select: { agentCapabilities: true } });
  if (!node?.agentCapabilities.includes(how.capability)) throw new AppError('ILLEGAL_TRANSITION', how.unsupported);
  const t = handoffTransition('desk', how.event);
  if (!t.ok) throw new AppError('ILLEGAL_TRANSITION', { message: 'not at the desk' });
  const claimed = await db.session.updateMany({ where: { id: row.id, handoff: 'desk', deskPid: input.pid }, data: { handoff: t.next } });
  if (claimed.count !== 1) throw new AppError('CONFLICT', { message: 'the desk changed meanwhile', userMessage: 'sessions.desk_changed' });
  let dto: SessionDto;
  try {
    dto = await resumeSession(deps, { sessionId: row.id, takingOver: true });
  } catch (err) {
    await db.session.updateMany({ where: { id: row.id, handoff: t.next }, data: { handoff: 'desk', deskSeenAt: clock.now() } });
    throw err;
  }
  if (input.text) {
    await acceptMessage(deps, { sessionId: row.id, text: input.text, source: input.source, ...(input.sourceKey ? { sourceKey: input.sourceKey } : {}) });
  }
  return dto;
}
