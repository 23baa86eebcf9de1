import { AppError, handoffOf } from '../../domain/index.ts';
import { getSessionRow } from '../../db/repos/sessions.ts';
import { applyIntent } from '../../engine/step/apply-intent.ts';
import { depsOf, type ServiceDeps, type SessionDto, toSessionDto } from './session-dto.ts';

/**
 * Exact resume of an archived session by its native id, on its own node, with its own executor.
 * A failure leaves the archive record as it was and produces exactly one notice (engine side).
 */
export async function resumeSession(deps: ServiceDeps, input: { sessionId: string; cardVersion?: number; takingOver?: boolean }): Promise<SessionDto> {
  const { db } = depsOf(deps);
  const row = await getSessionRow(db, input.sessionId);
  if (!row) throw new AppError('NOT_FOUND', { message: 'session not found' });
  // Never a second CLI beside one running at the computer: "Continue here" (continue-here.ts) is the way.
  if (handoffOf(row.handoff) !== 'none' && !input.takingOver) {
    throw new AppError('ILLEGAL_TRANSITION', { message: 'the session runs in a terminal at its computer', userMessage: 'sessions.running_at_desk' });
  }
  if (!row.nativeSessionId) throw new AppError('ILLEGAL_TRANSITION', { message: 'no native id to resume' });
  // A CLI is resumed in the folder the conversation ran in; without one nothing is sent to the node
  // (it could only refuse), and the archive record stays as it is.
  if (!row.folder.trim()) throw new AppError('ILLEGAL_TRANSITION', { message: 'no folder recorded to resume in', userMessage: 'sessions.no_folder' });
  if (row.nativeGoneAt && row.state === 'Archived') {
    // Deleted on its computer (discovery saw it go) and Bria holds no copy to put back: a CLI would
    // only fail to find it. Refused here, the archive record unchanged.
    const copy = await db.archiveCopy.findUnique({ where: { sessionId: row.id }, select: { sessionId: true } });
    if (!copy) throw new AppError('ILLEGAL_TRANSITION', { message: 'native journal deleted on its computer', userMessage: 'sessions.native_gone' });
  }
  const node = await db.node.findUnique({ where: { id: row.nodeId }, select: { online: true } });
  if (!node?.online) throw new AppError('NODE_OFFLINE', { message: 'node offline', userMessage: 'sessions.node_offline' });
  return toSessionDto(
    await applyIntent(depsOf(deps), input.sessionId, {
      type: 'resume_requested',
      ...(input.cardVersion === undefined ? {} : { cardVersion: input.cardVersion }),
    }),
  );
}
