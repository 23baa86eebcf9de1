import type { Db } from '../../db/client.ts';
import { issueAgentToken } from '../../db/repos/nodes.ts';
import { AppError } from '../../domain/errors.ts';
import { isInsecureRemote } from './add-computer.ts';
import { type BundleRef, installCommand } from './install-command.ts';

/**
 * A new agent token for a computer whose token was revoked or lost (issue 16): shown once, with the
 * same one command "Add a computer" shows (download the agent from the hub, check it, store the
 * token in a 0600 file, start). Other live tokens of the computer stay valid.
 */
export async function issueToken(opts: {
  db: Db;
  nodeId: string;
  hubPublicUrl: string;
  bundle: BundleRef | null;
}): Promise<{ nodeId: string; tokenId: string; token: string; command: string }> {
  const node = await opts.db.node.findUnique({ where: { id: opts.nodeId }, select: { id: true, removedAt: true } });
  if (!node || node.removedAt) throw new AppError('NOT_FOUND', { message: 'computer not found', userMessage: 'nodes.remove.notFound' });
  if (!opts.bundle) {
    throw new AppError('NOT_FOUND', { message: 'the agent bundle is not built on this server: run `npm run build:agent` (npm start builds it)' });
  }
  const { tokenId, token } = await issueAgentToken(opts.db, opts.nodeId, 'dashboard');
  const command = installCommand({ hubUrl: opts.hubPublicUrl, bundle: opts.bundle, token, insecure: isInsecureRemote(opts.hubPublicUrl) });
  return { nodeId: opts.nodeId, tokenId, token, command };
}
