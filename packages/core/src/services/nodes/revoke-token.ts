import { findAgentToken } from '../../db/repos/auth.ts';
import { revokeAgentToken } from '../../db/repos/nodes.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../domain/errors.ts';

/**
 * Revokes an agent token; a hub holding that agent's socket closes it. Revoking twice is harmless
 * and keeps the first revocation time.
 */
export async function revokeToken(opts: { db: Db; tokenId: string }): Promise<{ tokenId: string; nodeId: string }> {
  const token = await findAgentToken(opts.db, opts.tokenId);
  if (!token) throw new AppError('NOT_FOUND', { message: 'agent token not found', userMessage: 'nodes.token.notFound' });
  if (token.revokedAt === null) await revokeAgentToken(opts.db, token.id);
  return { tokenId: token.id, nodeId: token.nodeId };
}
