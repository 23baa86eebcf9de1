import type { Db } from '../../db/client.ts';
import { issueAgentToken } from '../../db/repos/nodes.ts';
import { AppError } from '../../domain/errors.ts';

/**
 * A new agent token for a computer whose token was revoked or lost (issue 16): shown once, with the
 * command to run on that computer, as "Add a computer" does. Other live tokens of it stay valid.
 */
export async function issueToken(opts: { db: Db; nodeId: string; hubPublicUrl: string }): Promise<{ nodeId: string; tokenId: string; token: string; command: string }> {
  const node = await opts.db.node.findUnique({ where: { id: opts.nodeId }, select: { id: true, removedAt: true } });
  if (!node || node.removedAt) throw new AppError('NOT_FOUND', { message: 'computer not found', userMessage: 'nodes.remove.notFound' });
  const { tokenId, token } = await issueAgentToken(opts.db, opts.nodeId, 'dashboard');
  return { nodeId: opts.nodeId, tokenId, token, command: `npm run agent -- --hub ${opts.hubPublicUrl} --token ${token}` };
}
