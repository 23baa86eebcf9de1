import { AppError } from '../../domain/index.ts';
import { lastFinal, listMessages, type MessageDto } from '../../db/repos/messages.ts';
import { getSessionRow, listOpenSessionRows, listOpenSessionRowsAcross } from '../../db/repos/sessions.ts';
import type { Executor } from '../../protocol/messages.ts';
import { depsOf, type ServiceDeps, type SessionDto, toSessionDto } from './session-dto.ts';

export interface SessionDetailDto extends SessionDto {
  messages: Omit<MessageDto, 'finalText'>[];
  lastFinal: { messageId: string; text: string } | null;
}

export async function getSession(deps: ServiceDeps, input: { sessionId: string }): Promise<SessionDetailDto> {
  const { db } = depsOf(deps);
  const row = await getSessionRow(db, input.sessionId);
  if (!row) throw new AppError('NOT_FOUND', { message: 'session not found' });
  const messages = (await listMessages(db, row.id)).map(({ finalText: _f, ...m }) => m);
  return { ...toSessionDto(row), messages, lastFinal: await lastFinal(db, row.id) };
}

/** The node's open sessions (everything not archived), newest first. */
export async function listOpenSessions(deps: ServiceDeps, input: { nodeId: string }): Promise<SessionDto[]> {
  const { db } = depsOf(deps);
  return (await listOpenSessionRows(db, input.nodeId)).map(toSessionDto);
}

export interface OpenSessionAcrossDto extends SessionDto {
  nodeName: string;
  nodeOnline: boolean;
}

/** Open sessions across computers (not removed ones), with their computer; unordered (the caller orders). */
export async function listOpenSessionsAcross(deps: ServiceDeps, input: { nodeId?: string; executor?: Executor }): Promise<OpenSessionAcrossDto[]> {
  const { db } = depsOf(deps);
  return (await listOpenSessionRowsAcross(db, input)).map(({ node, ...row }) => ({ ...toSessionDto(row), nodeName: node.name, nodeOnline: node.online }));
}
