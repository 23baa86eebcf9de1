import { AppError, isOpenState } from '../../domain/index.ts';
import { lastFinal } from '../../db/repos/messages.ts';
import { getActiveSessionId, getSessionRow, setActiveSessionId } from '../../db/repos/sessions.ts';
import { depsOf, type ServiceDeps, type SessionDto, toSessionDto } from './session-dto.ts';

/** The chat's active session on a node (remembered per node), or null. */
export async function getActiveSession(deps: ServiceDeps, input: { chatId: bigint; nodeId: string }): Promise<SessionDto | null> {
  const { db } = depsOf(deps);
  const id = await getActiveSessionId(db, input.chatId, input.nodeId);
  const row = id ? await getSessionRow(db, id) : null;
  return row && isOpenState(row.state) ? toSessionDto(row) : null;
}

export interface SwitchResult {
  active: SessionDto;
  previousActiveId: string | null;
  lastFinal: { messageId: string; text: string } | null;
}

/**
 * Makes a session the chat's active one on its node (select, switch, or the jump button of a
 * background-completion notice). Display only: no process is started, stopped or restarted; the
 * previously active session simply becomes background and keeps working.
 */
export async function selectActiveSession(deps: ServiceDeps, input: { chatId: bigint; sessionId: string }): Promise<SwitchResult> {
  const { db } = depsOf(deps);
  const row = await getSessionRow(db, input.sessionId);
  if (!row) throw new AppError('NOT_FOUND', { message: 'session not found' });
  if (!isOpenState(row.state)) throw new AppError('ILLEGAL_TRANSITION', { message: 'only open sessions can be active' });
  const chat = await db.telegramChat.findUnique({ where: { chatId: input.chatId }, select: { chatId: true } });
  if (!chat) throw new AppError('NOT_FOUND', { message: 'chat not found' });
  const previous = await getActiveSessionId(db, input.chatId, row.nodeId);
  await setActiveSessionId(db, input.chatId, row.nodeId, row.id);
  return { active: toSessionDto(row), previousActiveId: previous === row.id ? null : previous, lastFinal: await lastFinal(db, row.id) };
}

/** The jump button of a background-completion notice. */
export const jumpToSession = selectActiveSession;
