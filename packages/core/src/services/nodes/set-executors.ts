import type { Db } from '../../db/client.ts';
import { AppError } from '../../domain/errors.ts';
import type { Executor } from '../../protocol/index.ts';

/**
 * Which executors new sessions on a node may use. Existing sessions keep theirs.
 * TODO(db owner): move the update into `db/repos/nodes.ts` (outside this task's files).
 */
export async function setExecutors(opts: { db: Db; nodeId: string; executors: Executor[] }): Promise<{ nodeId: string; enabledExecutors: Executor[] }> {
  const unique = [...new Set(opts.executors)].sort();
  if (unique.length === 0) {
    throw new AppError('INVALID_INPUT', { message: 'a node needs at least one executor', userMessage: 'nodes.executors.atLeastOne' });
  }
  // An unknown id makes Prisma throw P2025, which the API reports as not found.
  const row = await opts.db.node.update({
    where: { id: opts.nodeId },
    data: { enabledExecutors: { set: unique } },
    select: { id: true, enabledExecutors: true },
  });
  return { nodeId: row.id, enabledExecutors: row.enabledExecutors };
}
