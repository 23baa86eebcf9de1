import type { Db } from '../../db/client.ts';
import { AppError } from '../../domain/errors.ts';
import type { Executor } from '../../protocol/index.ts';
import { isPermissionMode, type SessionPermissionMode } from '../../protocol/session-choices.ts';
import { modeUnavailable } from '../sessions/session-choices.ts';

/**
 * The permission mode preselected for new sessions of one executor on a node (the dashboard's node
 * settings and the bot's /new choose it). Existing sessions keep theirs. A mode the node's agent
 * said cannot start there is refused, so a default never preselects a start that fails.
 */
export async function setPermissionMode(opts: {
  db: Db;
  nodeId: string;
  executor: Executor;
  mode: string;
}): Promise<{ nodeId: string; executor: Executor; mode: SessionPermissionMode }> {
  const { mode, executor } = opts;
  if (!isPermissionMode(executor, mode))
    throw new AppError('INVALID_INPUT', { message: `permission mode not offered for ${executor}`, userMessage: 'sessions.mode_invalid' });
  const node = await opts.db.node.findUnique({ where: { id: opts.nodeId }, select: { unavailableModes: true } });
  if (!node) throw new AppError('NOT_FOUND', { message: 'node not found' });
  if (modeUnavailable(node, executor, mode))
    throw new AppError('INVALID_INPUT', { message: 'permission mode cannot start on this node', userMessage: `sessions.mode_unavailable.${executor}` });
  await opts.db.node.update({
    where: { id: opts.nodeId },
    data: executor === 'claude' ? { claudePermissionMode: mode } : { codexPermissionMode: mode },
    select: { id: true },
  });
  return { nodeId: opts.nodeId, executor, mode };
}
