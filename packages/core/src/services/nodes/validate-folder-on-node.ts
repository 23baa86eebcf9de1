import type { Db } from '../../db/client.ts';
import { enqueueCommand, findCommandResult } from '../../db/repos/agent-commands.ts';
import { AppError } from '../../domain/errors.ts';
import { zValidateFolderResult } from '../../protocol/command-results.ts';

/**
 * Asks the node's agent whether a working folder may be used (absolute, exists, a directory, no
 * symlink on the way) and returns its real path. Front ends call this before `createSession`, so
 * the user reads the node's own reason instead of a session that can never start.
 */
export async function validateFolderOnNode(opts: { db: Db; nodeId: string; folder: string; timeoutMs?: number; pollMs?: number }): Promise<{ folder: string }> {
  const { db } = opts;
  const node = await db.node.findUnique({ where: { id: opts.nodeId }, select: { online: true } });
  if (!node) throw new AppError('NOT_FOUND', { message: 'node not found' });
  if (!node.online) throw new AppError('NODE_OFFLINE', { message: 'node offline', userMessage: 'sessions.node_offline' });
  const commandId = await enqueueCommand(db, { nodeId: opts.nodeId, type: 'validate_folder', payload: { folder: opts.folder } });
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  while (Date.now() < deadline) {
    const raw = await findCommandResult(db, opts.nodeId, commandId);
    if (raw) {
      const parsed = zValidateFolderResult.safeParse(raw);
      const result = parsed.success ? parsed.data : null;
      if (result?.ok === true) return { folder: result.folder };
      // The node's human text is shown as it is (the hub decides nothing on it).
      const reason = result?.ok === false ? (result.reason ?? result.error) : undefined;
      throw new AppError('INVALID_INPUT', { message: 'folder refused by the node', userMessage: reason ?? 'The folder cannot be used.' });
    }
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 50));
  }
  throw new AppError('NODE_OFFLINE', {
    message: 'node did not answer the folder check in time',
    userMessage: 'The computer did not answer the folder check in time; try again.',
  });
}
